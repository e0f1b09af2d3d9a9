// How SQLite stores the mail outbox. Claims need no row locks: a write
// transaction holds SQLite's single write lock.
#include <limits>

#include "store/outbox_columns.hpp"
#include "store/sqlite/connection.hpp"
#include "store/sqlite/prune.hpp"
#include "store/sqlite/transaction.hpp"

namespace authd::sqlite {

std::int64_t Outbox::enqueue(const OutboxRecord& m) {
  auto st = db_.prepare(
      "INSERT INTO outbox (kind, user_id, email, created_at, attempts, next_attempt_at, "
      "password_hash, display_name, client_address) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)");
  st.bind(1, m.kind).bind(2, m.user_id).bind(3, m.email).bind(4, m.created_at);
  st.bind(5, static_cast<std::int64_t>(m.attempts)).bind(6, m.next_attempt_at);
  st.bind(7, m.password_hash).bind(8, m.display_name).bind(9, m.client_address);
  st.run();
  return db_.last_insert_id();
}

void Outbox::add(const OutboxRecord& m) { enqueue(m); }

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
  // The write transaction holds SQLite's single write lock, so no other
  // worker can claim the same rows between the SELECT and the UPDATE.
  std::vector<OutboxRecord> mails;
  {
    auto st = db_.prepare("SELECT " AUTHD_OUTBOX_COLUMNS
                          " FROM outbox "
                          "WHERE sent_at IS NULL AND next_attempt_at <= ?2 "
                          "AND (claimed_until IS NULL OR claimed_until <= ?1) "
                          "ORDER BY next_attempt_at, id LIMIT ?3");
    st.bind(1, now).bind(2, due_by).bind(3, static_cast<std::int64_t>(limit));
    while (st.step()) mails.push_back(read_outbox_record(st));
  }
  for (const OutboxRecord& mail : mails) {
    auto st = db_.prepare("UPDATE outbox SET claimed_until = ?2 WHERE id = ?1");
    st.bind(1, mail.id).bind(2, lease_until);
    st.run();
  }
  return mails;
}

bool Outbox::mark_sent(std::int64_t mail_id, Millis at, Millis claimed_until) {
  auto st = db_.prepare(
      "UPDATE outbox SET sent_at = ?2, claimed_until = NULL, last_error = NULL, "
      "password_hash = NULL "
      "WHERE id = ?1 AND claimed_until = ?3 AND sent_at IS NULL");
  st.bind(1, mail_id).bind(2, at).bind(3, claimed_until);
  st.run();
  return db_.changes() == 1;
}

void Outbox::release(std::int64_t mail_id, Millis claimed_until) {
  auto st =
      db_.prepare("UPDATE outbox SET claimed_until = NULL WHERE id = ?1 AND claimed_until = ?2");
  st.bind(1, mail_id).bind(2, claimed_until);
  st.run();
}

void Outbox::postpone(std::int64_t mail_id, Millis claimed_until, Millis next_attempt_at) {
  auto st = db_.prepare(
      "UPDATE outbox SET claimed_until = NULL, next_attempt_at = ?3 "
      "WHERE id = ?1 AND claimed_until = ?2");
  st.bind(1, mail_id).bind(2, claimed_until).bind(3, next_attempt_at);
  st.run();
}

void Outbox::reschedule(std::int64_t mail_id, int attempts, Millis next_attempt_at,
                        std::string_view last_error) {
  auto st = db_.prepare(
      "UPDATE outbox SET attempts = ?2, next_attempt_at = ?3, claimed_until = NULL, "
      "last_error = ?4 WHERE id = ?1");
  st.bind(1, mail_id).bind(2, static_cast<std::int64_t>(attempts)).bind(3, next_attempt_at);
  st.bind(4, last_error);
  st.run();
}

void Outbox::remove(std::int64_t mail_id) {
  auto st = db_.prepare("DELETE FROM outbox WHERE id = ?1");
  st.bind(1, mail_id);
  st.run();
}

void Outbox::remove_links_for(std::string_view user_id, std::string_view email) {
  auto st = db_.prepare(
      "DELETE FROM outbox WHERE (user_id = ?1 OR email = ?2) "
      "AND kind IN ('password_reset', 'signup', 'signup_request', 'email_signin')");
  st.bind(1, user_id).bind(2, email);
  st.run();
}

void Outbox::record_signup_request(const OutboxRecord& m) {
  auto st = db_.prepare(
      "INSERT INTO outbox (kind, user_id, email, created_at, attempts, next_attempt_at, "
      "password_hash, display_name, client_address, sent_at) "
      "VALUES (?1, '', ?2, ?3, 0, ?3, ?4, ?5, ?6, ?3)");
  st.bind(1, m.kind).bind(2, m.email).bind(3, m.created_at).bind(4, m.password_hash);
  st.bind(5, m.display_name).bind(6, m.client_address);
  st.run();
}

std::optional<OutboxRecord> Outbox::newest_signup_request(std::string_view email) {
  auto st = db_.prepare("SELECT " AUTHD_OUTBOX_COLUMNS
                        " FROM outbox WHERE email = ?1 AND password_hash IS NOT NULL "
                        "ORDER BY id DESC LIMIT 1");
  st.bind(1, email);
  if (!st.step()) return std::nullopt;
  return read_outbox_record(st);
}

void Outbox::forget_signup_requests(std::string_view email) {
  auto st = db_.prepare(
      "UPDATE outbox SET password_hash = NULL WHERE email = ?1 AND password_hash IS NOT NULL");
  st.bind(1, email);
  st.run();
}

void Outbox::remove_for(std::string_view user_id, std::string_view email) {
  auto st = db_.prepare("DELETE FROM outbox WHERE user_id = ?1 OR email = ?2");
  st.bind(1, user_id).bind(2, email);
  st.run();
}

std::int64_t Outbox::pending_count() {
  auto st = db_.prepare("SELECT count(*) FROM outbox WHERE sent_at IS NULL");
  st.step();
  return st.integer(0);
}

std::int64_t Outbox::prune(Millis sent_horizon) {
  auto st = db_.prepare(AUTHD_PRUNE("outbox", "id", "sent_at IS NOT NULL AND sent_at <= ?1"));
  st.bind(1, sent_horizon);
  st.run();
  return db_.changes();
}

}  // namespace authd::sqlite
