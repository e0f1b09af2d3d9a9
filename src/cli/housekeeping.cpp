#include "cli/housekeeping.hpp"

#include <chrono>

#include "core/log.hpp"
#include "store/transaction.hpp"

namespace authd {

namespace {

// Sent mails are kept a day after delivery (docs/guide/deployment.md).
constexpr Duration kSentMailKept = std::chrono::hours(24);
// The trail is indexed in transactions of bounded size, so that the group
// writer is never held long, once a second.
constexpr std::int64_t kEventsIndexedPerTransaction = 5'000;
constexpr Duration kEventIndexInterval = std::chrono::seconds(1);

}  // namespace

Housekeeping::Housekeeping(Store& store, Settings settings)
    : store_(store),
      settings_(settings),
      pruner_(settings.prune_interval, [this] { prune(); }),
      event_indexer_(kEventIndexInterval, [this] { index_events(); }) {}

void Housekeeping::start() {
  pruner_.start();
  event_indexer_.start();
}

void Housekeeping::stop() {
  pruner_.stop();
  event_indexer_.stop();
}

void Housekeeping::prune() {
  Millis now = now_millis();
  std::int64_t removed = 0;
  store_.run(Store::Mode::write, [&](Transaction& tx) {
    removed = tx.prune(now, now - settings_.throttle_window.count(), now - kSentMailKept.count(),
                       now - settings_.event_retention.count());
  });
  if (removed > 0) log::debug("pruned", {{"rows", removed}});
}

// Until a pass finds fewer than a transaction's worth: a burst is indexed
// within the second, in several transactions.
void Housekeeping::index_events() {
  std::int64_t indexed = kEventsIndexedPerTransaction;
  while (indexed == kEventsIndexedPerTransaction) {
    indexed = 0;
    store_.run(Store::Mode::write, [&](Transaction& tx) {
      indexed = tx.events().index_appended(kEventsIndexedPerTransaction);
    });
  }
}

}  // namespace authd
