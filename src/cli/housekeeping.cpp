#include "cli/housekeeping.hpp"

#include <chrono>
#include <utility>

#include "core/log.hpp"
#include "store/pruning.hpp"
#include "store/transaction.hpp"

namespace authd {

namespace {

// Sent mails are kept a day after delivery (docs/guide/deployment.md).
constexpr Duration kSentMailKept = std::chrono::hours(24);
// The trail is indexed in transactions of bounded size, so that the group
// writer is never held long, once a second.
constexpr std::int64_t kEventsIndexedPerTransaction = 5'000;
constexpr Duration kEventIndexInterval = std::chrono::seconds(1);
// Links whose kept tokens are dropped in one transaction.
constexpr int kTokensForgottenPerTransaction = 500;

}  // namespace

Housekeeping::Housekeeping(Store& store, Settings settings)
    : store_(store),
      settings_(std::move(settings)),
      pruner_(settings_.prune_interval, [this] { prune(); }),
      event_indexer_(kEventIndexInterval, [this] { index_events(); }) {}

void Housekeeping::start() {
  pruner_.start();
  event_indexer_.start();
}

void Housekeeping::stop() {
  pruner_.stop();
  event_indexer_.stop();
}

// A transaction removes at most kRowsPrunedPerTable rows of each table
// (interface.md 8.2); the pass runs more, with the same horizons, for the
// tables that gave as many, until none did, a transaction fails (the next
// pass goes on) or the server stops.
void Housekeeping::prune() {
  const Millis now = now_millis();
  PrunePass pass({.now = now,
                  .throttle = now - settings_.throttle_window.count(),
                  .sent_mail = now - kSentMailKept.count(),
                  .audit = now - settings_.event_retention.count()});
  while (!pass.done() && !pruner_.stopping()) {
    std::int64_t removed = 0;
    StoreStatus status =
        store_.run(Store::Mode::write, [&](Transaction& tx) { removed = pass.run(tx); });
    if (status != StoreStatus::ok) break;
    pass.committed();
    if (removed > 0) log::debug("pruned", {{"rows", removed}});
  }
  forget_tokens_not_kept();
}

// Once per process, in transactions of bounded size; a pass that fails
// leaves the rest to the next one. A link another transaction holds just
// then (PostgreSQL) is left to the next start.
void Housekeeping::forget_tokens_not_kept() {
  if (tokens_swept_) return;
  std::int64_t forgotten = 0;
  std::int64_t batch = kTokensForgottenPerTransaction;
  bool done = true;
  while (batch == kTokensForgottenPerTransaction) {
    batch = 0;
    StoreStatus status = store_.run(Store::Mode::write, [&](Transaction& tx) {
      batch = tx.identities().forget_tokens_not_kept_by(
          settings_.providers_keeping_tokens, started_at_, kTokensForgottenPerTransaction);
    });
    if (status != StoreStatus::ok) {
      done = false;
      break;
    }
    forgotten += batch;
  }
  tokens_swept_ = done;
  if (forgotten > 0) log::info("upstream_tokens_forgotten", {{"links", forgotten}});
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
