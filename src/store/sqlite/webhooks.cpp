// How SQLite stores the webhook queue. Claims need no row locks: a write
// transaction holds SQLite's single write lock.
#include "store/event_columns.hpp"
#include "store/sqlite/connection.hpp"
#include "store/sqlite/transaction.hpp"

namespace authd::sqlite {

std::optional<WebhookDeliveryRecord> Webhooks::claim_due(Millis now, Millis lease_until) {
  std::optional<WebhookDeliveryRecord> delivery;
  {
    auto st = db_.prepare("SELECT " AUTHD_DELIVERY_COLUMNS AUTHD_EVENT_COLUMNS
                          " FROM webhook_deliveries d JOIN events ON seq = d.event_seq "
                          "WHERE d.delivered_at IS NULL AND d.dead_at IS NULL "
                          "AND d.next_attempt_at <= ?1 "
                          "AND (d.claimed_until IS NULL OR d.claimed_until <= ?1) "
                          "ORDER BY d.next_attempt_at, d.event_seq LIMIT 1");
    st.bind(1, now);
    if (!st.step()) return std::nullopt;
    delivery = read_delivery_record(st);
  }
  auto st = db_.prepare("UPDATE webhook_deliveries SET claimed_until = ?2 WHERE event_seq = ?1");
  st.bind(1, delivery->event.seq).bind(2, lease_until);
  st.run();
  return delivery;
}

bool Webhooks::mark_delivered(std::int64_t event_seq, Millis at, Millis claimed_until) {
  auto st = db_.prepare(
      "UPDATE webhook_deliveries SET delivered_at = ?2, claimed_until = NULL, last_error = NULL "
      "WHERE event_seq = ?1 AND claimed_until = ?3 AND delivered_at IS NULL");
  st.bind(1, event_seq).bind(2, at).bind(3, claimed_until);
  st.run();
  return db_.changes() == 1;
}

bool Webhooks::reschedule(std::int64_t event_seq, Millis claimed_until, int attempts,
                          Millis next_attempt_at, std::string_view last_error) {
  auto st = db_.prepare(
      "UPDATE webhook_deliveries SET attempts = ?2, next_attempt_at = ?3, claimed_until = NULL, "
      "last_error = ?4 WHERE event_seq = ?1 AND claimed_until = ?5 AND delivered_at IS NULL");
  st.bind(1, event_seq).bind(2, static_cast<std::int64_t>(attempts)).bind(3, next_attempt_at);
  st.bind(4, last_error).bind(5, claimed_until);
  st.run();
  return db_.changes() == 1;
}

bool Webhooks::mark_dead(std::int64_t event_seq, Millis claimed_until, int attempts, Millis at,
                         std::string_view last_error) {
  auto st = db_.prepare(
      "UPDATE webhook_deliveries SET attempts = ?2, dead_at = ?3, claimed_until = NULL, "
      "last_error = ?4 WHERE event_seq = ?1 AND claimed_until = ?5 AND delivered_at IS NULL");
  st.bind(1, event_seq).bind(2, static_cast<std::int64_t>(attempts)).bind(3, at);
  st.bind(4, last_error).bind(5, claimed_until);
  st.run();
  return db_.changes() == 1;
}

std::int64_t Webhooks::pending_count() {
  auto st = db_.prepare(
      "SELECT count(*) FROM webhook_deliveries WHERE delivered_at IS NULL AND dead_at IS NULL");
  st.step();
  return st.integer(0);
}

std::int64_t Webhooks::dead_count() {
  auto st = db_.prepare("SELECT count(*) FROM webhook_deliveries WHERE dead_at IS NOT NULL");
  st.step();
  return st.integer(0);
}

std::vector<WebhookDeliveryRecord> Webhooks::dead(int limit) {
  auto st = db_.prepare("SELECT " AUTHD_DELIVERY_COLUMNS AUTHD_EVENT_COLUMNS
                        " FROM webhook_deliveries d JOIN events ON seq = d.event_seq "
                        "WHERE d.dead_at IS NOT NULL ORDER BY d.event_seq LIMIT ?1");
  st.bind(1, static_cast<std::int64_t>(limit));
  std::vector<WebhookDeliveryRecord> deliveries;
  while (st.step()) deliveries.push_back(read_delivery_record(st));
  return deliveries;
}

std::int64_t Webhooks::retry_dead(Millis now) {
  auto st = db_.prepare(
      "UPDATE webhook_deliveries SET dead_at = NULL, attempts = 0, next_attempt_at = ?1 "
      "WHERE dead_at IS NOT NULL");
  st.bind(1, now);
  st.run();
  return db_.changes();
}

bool Webhooks::set_delivering(bool on) {
  bool was = false;
  {
    auto st = db_.prepare("SELECT delivering FROM webhook_config WHERE id = 1");
    was = st.step() && st.integer(0) != 0;
  }
  auto st = db_.prepare("UPDATE webhook_config SET delivering = ?1 WHERE id = 1");
  st.bind(1, static_cast<std::int64_t>(on ? 1 : 0));
  st.run();
  return was;
}

// Only when over: the count is the cheap part (the due index holds only
// pending rows); the oldest pending login.failed go first.
std::int64_t Webhooks::drop_over(std::int64_t most, Millis now) {
  std::int64_t over = pending_count() - most;
  if (over <= 0) return 0;
  auto st = db_.prepare(
      "DELETE FROM webhook_deliveries WHERE event_seq IN (SELECT d.event_seq "
      "FROM webhook_deliveries d JOIN events ON seq = d.event_seq "
      "WHERE d.delivered_at IS NULL AND d.dead_at IS NULL AND type = 'login.failed' "
      "AND (d.claimed_until IS NULL OR d.claimed_until <= ?1) ORDER BY d.event_seq LIMIT ?2)");
  st.bind(1, now).bind(2, over);
  st.run();
  return db_.changes();
}

}  // namespace authd::sqlite
