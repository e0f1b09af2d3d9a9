// How PostgreSQL stores throttling events: one row per counted attempt,
// read through the (key, at) index, the key locked before counting in a
// write transaction. In a batch of /forgot requests the counts and the
// events are shared by the batch's units (shared_throttle.hpp), and units
// that name the same key take it in turn.
#include <algorithm>

#include "store/postgres/connection.hpp"
#include "store/postgres/prune.hpp"
#include "store/postgres/read_pipeline.hpp"
#include "store/postgres/shared_throttle.hpp"
#include "store/postgres/transaction.hpp"

namespace authd::postgres {

std::vector<Millis> ThrottleEvents::event_times(std::string_view key, Millis after, int most) {
  // A separate statement: a READ COMMITTED statement sees what was
  // committed when it started, so the count must start after the lock.
  // Sent ahead, in the same round trip as the count: the pipeline runs
  // them in order, and a lock that fails fails the count and the
  // transaction with it.
  if (locking_) lock(key);
  if (PipelineTurns* batch = db_.transaction_batch()) {
    batch->throttle().take_turn(*batch, key);
    return batch->throttle().event_times(db_, *batch, key, after, most);
  }
  // A read batch's counts (client authentication's check) share one
  // statement too; no unit of it adds events or takes turns.
  if (PipelineTurns* batch = db_.read_batch())
    return batch->throttle().event_times(db_, *batch, key, after, most);
  return SharedThrottle::event_times_alone(db_, key, after, most);
}

void ThrottleEvents::take_turn(std::string_view key) {
  if (PipelineTurns* batch = db_.transaction_batch()) batch->throttle().take_turn(*batch, key);
}

void ThrottleEvents::done_with(std::span<const std::string> keys) {
  PipelineTurns* batch = db_.transaction_batch();
  if (batch == nullptr) return;
  for (const std::string& key : keys) batch->throttle().release(*batch, key);
}

void ThrottleEvents::lock(std::string_view key) {
  if (std::find(locked_.begin(), locked_.end(), key) != locked_.end()) return;
  Params params;
  params.text(key);
  db_.send_ahead("SELECT pg_advisory_xact_lock(hashtextextended($1, 0))", params);
  locked_.emplace_back(key);
}

// One statement for all of them, the function run once per element in the
// array's order (a volatile function in the target list runs after the
// ORDER BY's sort).
void ThrottleEvents::lock_in_order(std::span<const std::string> keys) {
  std::vector<std::string> ordered;
  for (const std::string& key : keys)
    if (std::find(locked_.begin(), locked_.end(), key) == locked_.end()) ordered.push_back(key);
  std::sort(ordered.begin(), ordered.end());
  ordered.erase(std::unique(ordered.begin(), ordered.end()), ordered.end());
  if (ordered.empty()) return;
  if (ordered.size() == 1) {
    lock(ordered.front());
    return;
  }
  Params params;
  params.text_array(ordered);
  db_.send_ahead(
      "SELECT pg_advisory_xact_lock(hashtextextended(k.key, 0))"
      " FROM unnest($1::text[]) WITH ORDINALITY AS k (key, n) ORDER BY k.n",
      params);
  locked_.insert(locked_.end(), ordered.begin(), ordered.end());
}

// The statements below run after the events a batch has kept back, as they
// would had each gone ahead on its own.
void ThrottleEvents::send_kept_events() {
  if (PipelineTurns* batch = db_.transaction_batch()) batch->throttle().send_ahead(db_);
}

std::int64_t ThrottleEvents::insert_event(std::string_view key, Millis at) {
  take_turn(key);
  send_kept_events();
  Params params;
  params.text(key).integer(at);
  std::int64_t id =
      db_.run("INSERT INTO throttle_events (key, at) VALUES ($1, $2) RETURNING id", params)
          .integer(0, 0);
  if (PipelineTurns* batch = db_.transaction_batch()) batch->throttle().note_inserted(key, at);
  return id;
}

// No round trip of its own (a counted request's event); in a batch, one
// INSERT for the batch's events (shared_throttle.hpp).
void ThrottleEvents::add_event(std::string_view key, Millis at) {
  if (PipelineTurns* batch = db_.transaction_batch()) {
    batch->throttle().take_turn(*batch, key);
    batch->throttle().add_event(key, at);
    return;
  }
  Params params;
  params.text(key).integer(at);
  db_.send_ahead("INSERT INTO throttle_events (key, at) VALUES ($1, $2)", params);
}

void ThrottleEvents::delete_event(std::int64_t event_id) {
  send_kept_events();
  // Of a key this unit has its turn on (it inserted the event), but which
  // one is not said: nothing known is trusted afterwards.
  if (PipelineTurns* batch = db_.transaction_batch()) batch->throttle().forget_all();
  Params params;
  params.integer(event_id);
  db_.run("DELETE FROM throttle_events WHERE id = $1", params);
}

void ThrottleEvents::delete_events(std::string_view key) {
  take_turn(key);
  send_kept_events();
  if (PipelineTurns* batch = db_.transaction_batch()) batch->throttle().forget(key);
  Params params;
  params.text(key);
  db_.run("DELETE FROM throttle_events WHERE key = $1", params);
}

std::int64_t ThrottleEvents::prune(Millis horizon) {
  send_kept_events();
  if (PipelineTurns* batch = db_.transaction_batch()) batch->throttle().forget_all();
  Params params;
  params.integer(horizon);
  return db_.run(AUTHD_PRUNE("throttle_events", "at <= $1"), params).affected();
}

}  // namespace authd::postgres
