// The audit events of a batch of logouts, inserted by one statement
// (docs/design/performance-choices.md#postgresql-logout-batches-in-two-statements).
// Each logout's event would be an INSERT of its own, sent ahead of the batch's
// COMMIT; the batch collects them instead and sends one INSERT of all of them,
// in the order they were added, ahead of that COMMIT (run_in_one_pipeline).
// Like the INSERTs it replaces, it has no answer of its own: the COMMIT reports
// its failure, and the batch is then undone and each logout runs alone.
#pragma once

#include <vector>

#include "store/records.hpp"

namespace authd::postgres {

class Connection;

class EventBatch {
 public:
  // As Events::add: the event, and its webhook delivery while webhooks are on.
  void add(const EventRecord& event);
  // Sends what was added, to travel with the next awaited statement: one
  // INSERT of them all, so that their `seq`s follow the order they were
  // added in. Nothing when nothing was.
  void send_ahead(Connection& db);

 private:
  std::vector<EventRecord> events_;
};

}  // namespace authd::postgres
