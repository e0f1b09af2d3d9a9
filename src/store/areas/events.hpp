// The events area (interface.md 14.1-14.2): the audit trail, appended to in
// the transaction of each change it records, read newest first, pruned
// after the retention period. An event appended for webhooks also queues
// its delivery (store/areas/webhooks.hpp) in the same transaction, so that
// neither is written without the other.
#pragma once

#include <cstdint>
#include <vector>

#include "store/records.hpp"

namespace authd {

class EventStore {
 public:
  virtual ~EventStore() = default;

  // Appends `event` (its `seq` is the store's) and, with `to_webhooks`,
  // queues its delivery, due at once; returns the seq.
  virtual std::int64_t append(const EventRecord& event, bool to_webhooks) = 0;
  // The same, for a caller that needs no seq. PostgreSQL sends it with the
  // transaction's next statement or its COMMIT instead of in a round trip
  // of its own; if it fails, that statement fails, and with it the
  // transaction.
  virtual void add(const EventRecord& event, bool to_webhooks) { append(event, to_webhooks); }
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
