// How PostgreSQL stores the mail outbox: claims pass over what another
// instance is claiming (SKIP LOCKED) instead of waiting for it.
#include <algorithm>
#include <limits>
#include <tuple>

#include "store/outbox_columns.hpp"
#include "store/postgres/connection.hpp"
#include "store/postgres/mail_batch.hpp"
#include "store/postgres/prune.hpp"
#include "store/postgres/read_pipeline.hpp"
#include "store/postgres/transaction.hpp"

namespace authd::postgres {

// One statement for both ways of queueing a mail, with or without its id.
#define AUTHD_INSERT_MAIL                                                             \
  "INSERT INTO outbox (kind, user_id, email, created_at, attempts, next_attempt_at, " \
  "password_hash, display_name, client_address) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)"

namespace {

Params mail_params(const OutboxRecord& m) {
  Params params;
  params.text(m.kind).text(m.user_id).text(m.email).integer(m.created_at);
  params.integer(static_cast<std::int64_t>(m.attempts)).integer(m.next_attempt_at);
  params.text(m.password_hash).text(m.display_name).text(m.client_address);
  return params;
}

}  // namespace

std::int64_t Outbox::enqueue(const OutboxRecord& m) {
  return db_.run(AUTHD_INSERT_MAIL " RETURNING id", mail_params(m)).integer(0, 0);
}

// No round trip of its own: a /forgot's mail goes with what follows it; in
// a batch, with the batch's others in one INSERT (mail_batch.hpp).
void Outbox::add(const OutboxRecord& m) {
  if (PipelineTurns* batch = db_.transaction_batch()) {
    batch->mails().add(m);
    return;
  }
  db_.send_ahead(AUTHD_INSERT_MAIL, mail_params(m));
}

std::vector<OutboxRecord> Outbox::claim_due(Millis now, Millis lease_until, std::size_t limit) {
  return claim(now, now, lease_until, limit);
}

std::optional<OutboxRecord> Outbox::claim_pending(Millis now, Millis lease_until) {
  std::vector<OutboxRecord> mails = claim(now, std::numeric_limits<Millis>::max(), lease_until, 1);
  if (mails.empty()) return std::nullopt;
  return std::move(mails.front());
}

// The `limit` unsent, unclaimed mails due at `due_by` with the earliest next
// attempts, oldest first.
std::vector<OutboxRecord> Outbox::claim(Millis now, Millis due_by, Millis lease_until,
                                        std::size_t limit) {
  // One statement finds, locks and leases them. The ids go through an
  // array so that the update finds its rows by primary key: written as
  // "id IN (subquery)", the generic plan joined the ids to a sequential scan
  // of the whole outbox
  // (docs/design/performance-choices.md#postgresql-the-outbox-claim). Planned
  // again each second, as the throttle counts are: a plan made while the outbox
  // was empty scans it whole for the ids, as a /forgot load fills it.
  Params params;
  params.integer(now).integer(lease_until).integer(due_by);
  params.integer(static_cast<std::int64_t>(limit));
  Result rows = db_.run_replanned(
      "UPDATE outbox SET claimed_until = $2 WHERE id = ANY(ARRAY("
      " SELECT id FROM outbox WHERE sent_at IS NULL AND next_attempt_at <= $3"
      " AND (claimed_until IS NULL OR claimed_until <= $1)"
      " ORDER BY next_attempt_at, id LIMIT $4 FOR UPDATE SKIP LOCKED)) "
      "RETURNING " AUTHD_OUTBOX_COLUMNS,
      params);
  std::vector<OutboxRecord> mails;
  mails.reserve(rows.rows());
  for (int i = 0; i < rows.rows(); ++i) mails.push_back(read_outbox_record(Row(rows, i)));
  // RETURNING keeps no order of its own.
  std::sort(mails.begin(), mails.end(), [](const OutboxRecord& a, const OutboxRecord& b) {
    return std::tie(a.next_attempt_at, a.id) < std::tie(b.next_attempt_at, b.id);
  });
  return mails;
}

bool Outbox::mark_sent(std::int64_t mail_id, Millis at, Millis claimed_until) {
  Params params;
  params.integer(mail_id).integer(at).integer(claimed_until);
  return db_.run(
                "UPDATE outbox SET sent_at = $2, claimed_until = NULL, last_error = NULL, "
                "password_hash = NULL "
                "WHERE id = $1 AND claimed_until = $3 AND sent_at IS NULL",
                params)
             .affected() == 1;
}

void Outbox::release(std::int64_t mail_id, Millis claimed_until) {
  Params params;
  params.integer(mail_id).integer(claimed_until);
  db_.run("UPDATE outbox SET claimed_until = NULL WHERE id = $1 AND claimed_until = $2", params);
}

void Outbox::postpone(std::int64_t mail_id, Millis claimed_until, Millis next_attempt_at) {
  Params params;
  params.integer(mail_id).integer(claimed_until).integer(next_attempt_at);
  db_.run(
      "UPDATE outbox SET claimed_until = NULL, next_attempt_at = $3 "
      "WHERE id = $1 AND claimed_until = $2",
      params);
}

void Outbox::reschedule(std::int64_t mail_id, int attempts, Millis next_attempt_at,
                        std::string_view last_error) {
  Params params;
  params.integer(mail_id).integer(static_cast<std::int64_t>(attempts)).integer(next_attempt_at);
  params.text(last_error);
  db_.run(
      "UPDATE outbox SET attempts = $2, next_attempt_at = $3, claimed_until = NULL, "
      "last_error = $4 WHERE id = $1",
      params);
}

void Outbox::remove(std::int64_t mail_id) {
  Params params;
  params.integer(mail_id);
  db_.run("DELETE FROM outbox WHERE id = $1", params);
}

void Outbox::remove_links_for(std::string_view user_id, std::string_view email) {
  Params params;
  params.text(user_id).text(email);
  db_.run(
      "DELETE FROM outbox WHERE (user_id = $1 OR email = $2) "
      "AND kind IN ('password_reset', 'signup', 'signup_request', 'email_signin')",
      params);
}

void Outbox::record_signup_request(const OutboxRecord& m) {
  Params params;
  params.text(m.kind).text(m.email).integer(m.created_at).text(m.password_hash);
  params.text(m.display_name).text(m.client_address);
  db_.run(
      "INSERT INTO outbox (kind, user_id, email, created_at, attempts, next_attempt_at, "
      "password_hash, display_name, client_address, sent_at) "
      "VALUES ($1, '', $2, $3, 0, $3, $4, $5, $6, $3)",
      params);
}

std::optional<OutboxRecord> Outbox::newest_signup_request(std::string_view email) {
  Params params;
  params.text(email);
  Result rows = db_.run("SELECT " AUTHD_OUTBOX_COLUMNS
                        " FROM outbox WHERE email = $1 AND password_hash IS NOT NULL "
                        "ORDER BY id DESC LIMIT 1",
                        params);
  if (rows.rows() == 0) return std::nullopt;
  return read_outbox_record(Row(rows, 0));
}

void Outbox::forget_signup_requests(std::string_view email) {
  Params params;
  params.text(email);
  db_.run("UPDATE outbox SET password_hash = NULL WHERE email = $1 AND password_hash IS NOT NULL",
          params);
}

void Outbox::remove_for(std::string_view user_id, std::string_view email) {
  Params params;
  params.text(user_id).text(email);
  db_.run("DELETE FROM outbox WHERE user_id = $1 OR email = $2", params);
}

std::int64_t Outbox::pending_count() {
  return db_.run("SELECT count(*) FROM outbox WHERE sent_at IS NULL").integer(0, 0);
}

std::int64_t Outbox::prune(Millis sent_horizon) {
  Params params;
  params.integer(sent_horizon);
  return db_.run(AUTHD_PRUNE("outbox", "sent_at IS NOT NULL AND sent_at <= $1"), params).affected();
}

}  // namespace authd::postgres
