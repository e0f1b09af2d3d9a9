// How PostgreSQL stores throttling events: one row per counted attempt,
// read through the (key, at) index, the key locked before counting in a
// write transaction.
#include <algorithm>

#include "store/postgres/connection.hpp"
#include "store/postgres/transaction.hpp"

namespace authd::postgres {

std::vector<Millis> ThrottleEvents::event_times(std::string_view key, Millis after, int most) {
  Params params;
  params.text(key);
  // A separate statement: a READ COMMITTED statement sees what was
  // committed when it started, so the count must start after the lock.
  // Sent ahead, in the same round trip as the count: the pipeline runs
  // them in order, and a lock that fails fails the count and the
  // transaction with it.
  if (locking_) lock(key);
  params.integer(after).integer(most);
  // Plan: Index Only Scan Backward using throttle_events_by_key, stopped
  // by the LIMIT: no sort, `most` rows at most. Planned again each second:
  // the table can grow from nothing faster than ANALYZE follows, and a plan
  // made while it was nearly empty would read all of it.
  Result rows = db_.run_replanned(
      "SELECT at FROM throttle_events WHERE key = $1 AND at > $2 ORDER BY at DESC LIMIT $3",
      params);
  std::vector<Millis> times(static_cast<std::size_t>(rows.rows()));
  for (int i = 0; i < rows.rows(); ++i)  // newest first: fill from the back
    times[times.size() - 1 - static_cast<std::size_t>(i)] = rows.integer(i, 0);
  return times;
}

void ThrottleEvents::lock(std::string_view key) {
  if (std::find(locked_.begin(), locked_.end(), key) != locked_.end()) return;
  Params params;
  params.text(key);
  db_.send_ahead("SELECT pg_advisory_xact_lock(hashtextextended($1, 0))", params);
  locked_.emplace_back(key);
}

void ThrottleEvents::lock_in_order(std::span<const std::string> keys) {
  std::vector<std::string_view> ordered(keys.begin(), keys.end());
  std::sort(ordered.begin(), ordered.end());
  for (std::string_view key : ordered) lock(key);  // lock() skips a repeated key
}

std::int64_t ThrottleEvents::insert_event(std::string_view key, Millis at) {
  Params params;
  params.text(key).integer(at);
  return db_.run("INSERT INTO throttle_events (key, at) VALUES ($1, $2) RETURNING id", params)
      .integer(0, 0);
}

// No round trip of its own (a counted request's event).
void ThrottleEvents::add_event(std::string_view key, Millis at) {
  Params params;
  params.text(key).integer(at);
  db_.send_ahead("INSERT INTO throttle_events (key, at) VALUES ($1, $2)", params);
}

void ThrottleEvents::delete_event(std::int64_t event_id) {
  Params params;
  params.integer(event_id);
  db_.run("DELETE FROM throttle_events WHERE id = $1", params);
}

void ThrottleEvents::delete_events(std::string_view key) {
  Params params;
  params.text(key);
  db_.run("DELETE FROM throttle_events WHERE key = $1", params);
}

std::int64_t ThrottleEvents::prune(Millis horizon) {
  Params params;
  params.integer(horizon);
  return db_.run("DELETE FROM throttle_events WHERE at <= $1", params).affected();
}

}  // namespace authd::postgres
