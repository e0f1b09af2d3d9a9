// The throttling area: one row per counted attempt, keyed by what is
// throttled, e.g. "login:email:a@b.c" (auth/login/throttle.hpp).
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/time.hpp"

namespace authd {

class ThrottleStore {
 public:
  virtual ~ThrottleStore() = default;

  // The times of the newest `most` events of `key` later than `after`,
  // ascending: one backward range scan of the (key, at) index, so a throttle
  // check reads at most its limit's count of rows however many attempts
  // were made. In a write transaction on PostgreSQL the key is locked first
  // (an advisory lock), so that two instances cannot both count 9 and both
  // let a 10th attempt through.
  virtual std::vector<Millis> event_times(std::string_view key, Millis after, int most) = 0;
  virtual std::int64_t insert_event(std::string_view key, Millis at) = 0;
  // The same, for a caller that does not need the event's id (a counted
  // request): on PostgreSQL it costs no round trip of its own, sent ahead
  // with the next statement or the COMMIT.
  virtual void add_event(std::string_view key, Millis at) = 0;
  virtual void delete_event(std::int64_t event_id) = 0;
  virtual void delete_events(std::string_view key) = 0;
  // Removes the events at or before `horizon`; returns the rows removed.
  virtual std::int64_t prune(Millis horizon) = 0;
  // The transaction counts, adds and deletes no more events of `keys`. In a
  // batch whose units share a key (Database::write_together: one client
  // address's requests), the next unit that names them may then count
  // them, before this one has finished. Using such a key again afterwards
  // is an error, which undoes the batch (each unit then runs alone).
  virtual void done_with(std::span<const std::string> keys) { (void)keys; }
};

}  // namespace authd
