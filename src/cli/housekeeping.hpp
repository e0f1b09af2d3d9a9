// The background chores of `authd serve` on the database: the pruner
// (expired sessions and tokens, old throttling counters and sent mails, and
// events past --event-retention, interface.md 14.1.5) and the event
// indexer (SQLite's indexes of the audit trail, filled in bulk once a
// second: store/areas/events.hpp). Both write through the group writer's
// queue, on threads of their own.
#pragma once

#include "core/duration.hpp"
#include "core/periodic_thread.hpp"
#include "store/store.hpp"

namespace authd {

class Housekeeping {
 public:
  struct Settings {
    Duration prune_interval;
    Duration throttle_window;  // the longest throttling window: older counters go
    Duration event_retention;
  };

  Housekeeping(Store& store, Settings settings);
  void start();
  void stop();  // lets a running chore finish

 private:
  void prune();
  void index_events();

  Store& store_;
  Settings settings_;
  PeriodicThread pruner_;
  PeriodicThread event_indexer_;
};

}  // namespace authd
