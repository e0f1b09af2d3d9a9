// The background chores of `authd serve` on the database: the pruner
// (expired sessions and tokens, old throttling counters and sent mails, and
// events past --event-retention, interface.md 14.1.5) and the event
// indexer (SQLite's indexes of the audit trail, filled in bulk once a
// second: store/areas/events.hpp). Both write through the group writer's
// queue, on threads of their own. The pruner's first pass also drops the
// upstream tokens kept for providers this configuration does not keep
// them for (interface.md 18.5.1).
#pragma once

#include <string>
#include <vector>

#include "core/duration.hpp"
#include "core/periodic_thread.hpp"
#include "core/time.hpp"
#include "store/store.hpp"

namespace authd {

class Housekeeping {
 public:
  struct Settings {
    Duration prune_interval;
    Duration throttle_window;  // the longest throttling window: older counters go
    Duration event_retention;
    // The [[upstream]] names with keep-tokens = true.
    std::vector<std::string> providers_keeping_tokens;
  };

  Housekeeping(Store& store, Settings settings);
  void start();
  void stop();  // lets a running chore finish

 private:
  void prune();
  void forget_tokens_not_kept();
  void index_events();

  Store& store_;
  Settings settings_;
  // Only what was kept before this configuration was loaded: during a
  // rolling change of it, an instance still on the other configuration
  // may keep tokens meanwhile, and they are its to keep.
  Millis started_at_ = now_millis();
  bool tokens_swept_ = false;  // the pruner thread's own
  PeriodicThread pruner_;
  PeriodicThread event_indexer_;
};

}  // namespace authd
