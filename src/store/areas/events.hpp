// The events area (interface.md 14.1-14.2): the audit trail, appended to in
// the transaction of each change it records, read newest first, pruned
// after the retention period. While the database says webhooks are on
// (WebhookStore::set_delivering), an appended event also queues its
// delivery (store/areas/webhooks.hpp) in the same statement, whichever
// process writes it: the server's flag decides, not the writer's.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "store/records.hpp"

namespace authd {

class EventStore {
 public:
  virtual ~EventStore() = default;

  // Appends `event` (its `seq` is the store's) and, while webhooks are on,
  // queues its delivery, due at once; returns the seq.
  virtual std::int64_t append(const EventRecord& event) = 0;
  // The same, for a caller that needs no seq. PostgreSQL sends it with the
  // transaction's next statement or its COMMIT instead of in a round trip
  // of its own; if it fails, that statement fails, and with it the
  // transaction.
  virtual void add(const EventRecord& event) { append(event); }

  // A repeated event (interface.md 14.1: the 429s of one throttle key and
  // window make one event with a count). append_repeated appends the first,
  // its detail's `count` 1, as the open event of `key` until `until`; its
  // delivery, while webhooks are on, is due at `deliver_at`, once its
  // count is final. count_repeat adds one to the `count` of `key`'s open
  // event at `now`; false when none is open (then append one).
  virtual void append_repeated(const EventRecord& event, std::string_view key, Millis until,
                               Millis deliver_at) = 0;
  virtual bool count_repeat(std::string_view key, Millis now) = 0;
  // Forgets the repeated events' keys whose windows closed by `now`.
  virtual std::int64_t prune_repeats(Millis now) = 0;
  // Forgets `key`'s open event (erasure, an e-mail change: the key holds
  // the address, and a later 429 must not count in the old account's).
  virtual void forget_repeat(std::string_view key) = 0;
  // The newest event's seq (0: none): how many events the trail has been
  // written, by every process, for GET /metrics.
  virtual std::int64_t last_seq() = 0;

  // Newest first (by seq), at most filter.limit.
  virtual std::vector<EventRecord> list(const EventFilter& filter) = 0;
  // Removes the events from before `horizon`, with their deliveries.
  virtual std::int64_t prune(Millis horizon) = 0;
  // Brings the indexes by account and by type up to date with at most
  // `at_most` of the events appended since the last call, oldest first;
  // returns how many it indexed. What `list` returns never depends on it:
  // only how it finds them. SQLite indexes the trail in bulk here, so that
  // an append touches no random index page (each logout's commit would
  // write one more page, interface.md 14.1.5); PostgreSQL indexes each
  // row as it is written, and returns 0.
  virtual std::int64_t index_appended(std::int64_t at_most) = 0;
};

}  // namespace authd
