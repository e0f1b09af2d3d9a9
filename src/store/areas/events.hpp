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
  // Newest first (by seq), at most filter.limit.
  virtual std::vector<EventRecord> list(const EventFilter& filter) = 0;
  // Removes the events from before `horizon`, with their deliveries.
  virtual std::int64_t prune(Millis horizon) = 0;
};

}  // namespace authd
