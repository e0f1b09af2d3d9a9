// How SQLite stores throttling events: one row per counted attempt, read
// through the (key, at) index.
#include <algorithm>

#include "store/sqlite/connection.hpp"
#include "store/sqlite/prune.hpp"
#include "store/sqlite/transaction.hpp"

namespace authd::sqlite {

std::vector<Millis> ThrottleEvents::event_times(std::string_view key, Millis after, int most) {
  // Plan: SEARCH throttle_events USING COVERING INDEX throttle_events_by_key
  // (key=? AND at>?), walked backwards: no sort, `most` rows at most.
  auto st = db_.prepare(
      "SELECT at FROM throttle_events WHERE key = ?1 AND at > ?2 ORDER BY at DESC LIMIT ?3");
  st.bind(1, key).bind(2, after).bind(3, static_cast<std::int64_t>(most));
  std::vector<Millis> times;
  while (st.step()) times.push_back(st.integer(0));
  std::reverse(times.begin(), times.end());
  return times;
}

std::int64_t ThrottleEvents::insert_event(std::string_view key, Millis at) {
  auto st = db_.prepare("INSERT INTO throttle_events (key, at) VALUES (?1, ?2)");
  st.bind(1, key).bind(2, at);
  st.run();
  return db_.last_insert_id();
}

void ThrottleEvents::add_event(std::string_view key, Millis at) { insert_event(key, at); }

void ThrottleEvents::delete_event(std::int64_t event_id) {
  auto st = db_.prepare("DELETE FROM throttle_events WHERE id = ?1");
  st.bind(1, event_id);
  st.run();
}

void ThrottleEvents::delete_events(std::string_view key) {
  auto st = db_.prepare("DELETE FROM throttle_events WHERE key = ?1");
  st.bind(1, key);
  st.run();
}

std::int64_t ThrottleEvents::prune(Millis horizon) {
  auto st = db_.prepare(AUTHD_PRUNE("throttle_events", "id", "at <= ?1"));
  st.bind(1, horizon);
  st.run();
  return db_.changes();
}

}  // namespace authd::sqlite
