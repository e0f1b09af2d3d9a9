// How PostgreSQL stores the webhook queue: a delivery is claimed with
// FOR UPDATE SKIP LOCKED, so that instances never wait for each other's
// claims and never claim the same delivery under one lease.
#include "store/event_columns.hpp"
#include "store/postgres/connection.hpp"
#include "store/postgres/transaction.hpp"

namespace authd::postgres {

std::optional<WebhookDeliveryRecord> Webhooks::claim_due(Millis now, Millis lease_until) {
  Params params;
  params.integer(now).integer(lease_until);
  Result rows = db_.run(
      "WITH claimed AS (UPDATE webhook_deliveries SET claimed_until = $2 WHERE event_seq = ("
      " SELECT event_seq FROM webhook_deliveries WHERE delivered_at IS NULL AND dead_at IS NULL"
      " AND next_attempt_at <= $1 AND (claimed_until IS NULL OR claimed_until <= $1)"
      " ORDER BY next_attempt_at, event_seq LIMIT 1 FOR UPDATE SKIP LOCKED) "
      "RETURNING *) "
      "SELECT " AUTHD_DELIVERY_COLUMNS AUTHD_EVENT_COLUMNS
      " FROM claimed d JOIN events ON seq = d.event_seq",
      params);
  if (rows.rows() == 0) return std::nullopt;
  return read_delivery_record(Row(rows, 0));
}

bool Webhooks::mark_delivered(std::int64_t event_seq, Millis at, Millis claimed_until) {
  Params params;
  params.integer(event_seq).integer(at).integer(claimed_until);
  return db_.run(
                "UPDATE webhook_deliveries SET delivered_at = $2, claimed_until = NULL, "
                "last_error = NULL "
                "WHERE event_seq = $1 AND claimed_until = $3 AND delivered_at IS NULL",
                params)
             .affected() == 1;
}

bool Webhooks::reschedule(std::int64_t event_seq, Millis claimed_until, int attempts,
                          Millis next_attempt_at, std::string_view last_error) {
  Params params;
  params.integer(event_seq).integer(static_cast<std::int64_t>(attempts)).integer(next_attempt_at);
  params.text(last_error).integer(claimed_until);
  return db_.run(
                "UPDATE webhook_deliveries SET attempts = $2, next_attempt_at = $3, "
                "claimed_until = NULL, last_error = $4 "
                "WHERE event_seq = $1 AND claimed_until = $5 AND delivered_at IS NULL",
                params)
             .affected() == 1;
}

bool Webhooks::mark_dead(std::int64_t event_seq, Millis claimed_until, int attempts, Millis at,
                         std::string_view last_error) {
  Params params;
  params.integer(event_seq).integer(static_cast<std::int64_t>(attempts)).integer(at);
  params.text(last_error).integer(claimed_until);
  return db_.run(
                "UPDATE webhook_deliveries SET attempts = $2, dead_at = $3, claimed_until = NULL, "
                "last_error = $4 "
                "WHERE event_seq = $1 AND claimed_until = $5 AND delivered_at IS NULL",
                params)
             .affected() == 1;
}

std::int64_t Webhooks::pending_count() {
  return db_
      .run(
          "SELECT count(*) FROM webhook_deliveries WHERE delivered_at IS NULL "
          "AND dead_at IS NULL")
      .integer(0, 0);
}

std::int64_t Webhooks::dead_count() {
  return db_.run("SELECT count(*) FROM webhook_deliveries WHERE dead_at IS NOT NULL").integer(0, 0);
}

std::vector<WebhookDeliveryRecord> Webhooks::dead(int limit) {
  Params params;
  params.integer(static_cast<std::int64_t>(limit));
  Result rows = db_.run("SELECT " AUTHD_DELIVERY_COLUMNS AUTHD_EVENT_COLUMNS
                        " FROM webhook_deliveries d JOIN events ON seq = d.event_seq "
                        "WHERE d.dead_at IS NOT NULL ORDER BY d.event_seq LIMIT $1",
                        params);
  std::vector<WebhookDeliveryRecord> deliveries;
  deliveries.reserve(static_cast<std::size_t>(rows.rows()));
  for (int i = 0; i < rows.rows(); ++i) deliveries.push_back(read_delivery_record(Row(rows, i)));
  return deliveries;
}

std::int64_t Webhooks::retry_dead(Millis now) {
  Params params;
  params.integer(now);
  return db_
      .run(
          "UPDATE webhook_deliveries SET dead_at = NULL, attempts = 0, next_attempt_at = $1 "
          "WHERE dead_at IS NOT NULL",
          params)
      .affected();
}

// The row's lock orders two instances starting at once: each reads what
// the other wrote.
bool Webhooks::set_delivering(bool on) {
  Params params;
  params.boolean(on);
  return db_.run(
                "UPDATE webhook_config SET delivering = $1 FROM (SELECT delivering AS was "
                "FROM webhook_config WHERE id = 1 FOR UPDATE) old WHERE id = 1 RETURNING old.was",
                params)
             .text(0, 0) == "t";
}

// Only when over: the count is the cheap part (the due index holds only
// pending rows); the oldest pending login.failed go first, skipping the
// rows another instance's trim or claim holds.
std::int64_t Webhooks::drop_over(std::int64_t most, Millis now) {
  // One trimmer at a time across the instances, for the length of this
  // transaction: two that counted the same excess would each drop it.
  if (!db_.run("SELECT pg_try_advisory_xact_lock(hashtextextended('authd webhook trim', 0))")
           .boolean(0, 0))
    return 0;
  std::int64_t over = pending_count() - most;
  if (over <= 0) return 0;
  Params params;
  params.integer(now).integer(over);
  return db_
      .run(
          "DELETE FROM webhook_deliveries WHERE event_seq IN (SELECT d.event_seq "
          "FROM webhook_deliveries d JOIN events ON seq = d.event_seq "
          "WHERE d.delivered_at IS NULL AND d.dead_at IS NULL AND type = 'login.failed' "
          "AND (d.claimed_until IS NULL OR d.claimed_until <= $1) ORDER BY d.event_seq "
          "LIMIT $2 FOR UPDATE OF d SKIP LOCKED)",
          params)
      .affected();
}

}  // namespace authd::postgres
