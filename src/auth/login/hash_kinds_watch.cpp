#include "auth/login/hash_kinds_watch.hpp"

#include <algorithm>
#include <optional>
#include <vector>

#include "core/log.hpp"
#include "crypto/hashing_pool.hpp"
#include "crypto/random.hpp"
#include "store/store.hpp"

namespace authd {
namespace {

using Nanos = VerificationFloor::Nanos;

double median_of(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  return values[values.size() / 2];
}

double milliseconds(Nanos cost) { return static_cast<double>(cost.count()) / 1e6; }

}  // namespace

HashKindsWatch::HashKindsWatch(Store& store, HashingPool& hashing, const PasswordHasher& hasher)
    : store_(store),
      hashing_(hashing),
      hasher_(hasher),
      own_hash_(hasher.hash(new_secret_token("measure_"))),
      thread_(kRefreshInterval, [this] { refresh(); }) {}

bool HashKindsWatch::start_with_stored_costs() {
  measure_own();
  std::vector<HashKindCost> kinds;
  if (store_.run(Store::Mode::read,
                 [&](Transaction& tx) { kinds = tx.users().hash_kind_costs(); }) != StoreStatus::ok)
    return false;
  std::vector<std::string> unmeasured = take_stored(kinds);
  say_floor("login_floor", kinds.size(), unmeasured.size());
  return true;
}

std::vector<std::string> HashKindsWatch::take_stored(const std::vector<HashKindCost>& kinds) {
  std::vector<std::string> listed;
  for (const HashKindCost& kind : kinds) {
    listed.push_back(kind.kind);
    if (kind.relative_cost && kind.cost_basis == hasher_.own_kind())
      hashing_.floor().set_relative_cost(kind.kind, *kind.relative_cost);
  }
  // A kind another instance dropped (no hash of it is stored) leaves the
  // floor here too.
  hashing_.floor().retain(listed);
  return hashing_.floor().unmeasured(listed);
}

// Not a secret: the floor and how many kinds it follows.
void HashKindsWatch::say_floor(const char* event, std::size_t kinds, std::size_t unmeasured) {
  Nanos floor = hashing_.floor().current();
  log::info(event, {{"floor_ms", milliseconds(floor)},
                    {"kinds", static_cast<std::int64_t>(kinds)},
                    {"unmeasured", static_cast<std::int64_t>(unmeasured)}});
  bool high = floor > kFloorWarning;
  if (high && !floor_warned_) {
    log::warn("login_floor_high",
              {{"floor_ms", milliseconds(floor)},
               {"slowest_relative_cost", hashing_.floor().slowest()},
               {"reason",
                "every 401 of /login waits for the floor, 1.5 times the slowest kind of "
                "password hash stored; re-hash or remove the accounts of the costly kinds "
                "(docs/reference/metrics-and-logs.md)"}});
  }
  floor_warned_ = high;
}

void HashKindsWatch::refresh() {
  bool dropped = readings_++ % kReconcileEvery == 0 && reconcile();
  std::vector<HashKindCost> kinds;
  if (store_.run(Store::Mode::read,
                 [&](Transaction& tx) { kinds = tx.users().hash_kind_costs(); }) != StoreStatus::ok)
    return;
  std::vector<std::string> missing = take_stored(kinds);
  bool measured = false;
  for (const std::string& kind : missing) {
    if (thread_.stopping()) return;
    measure(kind);
    measured = true;
  }
  // The floor as it stands now, when it moved.
  if (measured || dropped)
    say_floor("login_floor", kinds.size(), hashing_.floor().unmeasured(missing).size());
}

bool HashKindsWatch::reconcile() {
  std::vector<std::string> dropped;
  if (store_.run(Store::Mode::write, [&](Transaction& tx) {
        dropped = tx.users().reconcile_hash_kinds();  // a transaction may run again: all anew
      }) != StoreStatus::ok)
    return false;
  for (const std::string& kind : dropped) {
    hashing_.floor().drop(kind);
    log::info("hash_kind_dropped", {{"kind", kind}});  // an algorithm and its parameters
  }
  return !dropped.empty();
}

bool HashKindsWatch::measure_own() {
  std::vector<double> costs;
  for (int i = 0; i < kPairs; ++i) {
    std::optional<Nanos> cost = hashing_.time_verification(own_hash_);
    if (cost) costs.push_back(static_cast<double>(cost->count()));
  }
  if (costs.empty()) return false;
  hashing_.floor().set_own_cost(Nanos(static_cast<Nanos::rep>(median_of(costs))));
  return true;
}

// Side by side, so that whatever else the machine does weighs on both
// alike: the ratio is what the load does not change.
void HashKindsWatch::measure(const std::string& kind) {
  if (refused_.count(kind) != 0) return;
  std::optional<std::string> synthetic = hasher_.hash_of_kind(kind, new_secret_token("measure_"));
  if (!synthetic) {
    refused_.insert(kind);
    // Not a secret: an algorithm and its parameters.
    log::warn("hash_kind_unmeasurable", {{"kind", kind},
                                         {"reason",
                                          "cannot make a hash of this kind to measure it; its "
                                          "cost is learnt from its logins"}});
    return;
  }
  std::vector<double> ratios;
  for (int i = 0; i < kPairs; ++i) {
    std::optional<Nanos> theirs = hashing_.time_verification(*synthetic);
    std::optional<Nanos> ours = hashing_.time_verification(own_hash_);
    if (!theirs || !ours || ours->count() <= 0) return;  // the pool is full: next time
    ratios.push_back(static_cast<double>(theirs->count()) / static_cast<double>(ours->count()));
    hashing_.floor().observe(hasher_.own_kind(), *ours, Nanos::zero());
  }
  double relative = median_of(ratios);
  hashing_.floor().set_relative_cost(kind, relative);
  // Stored, so that the next start (of any instance) begins with it.
  store_.run(Store::Mode::write, [&](Transaction& tx) {
    tx.users().set_hash_kind_cost(kind, hasher_.own_kind(), relative);
  });
  log::info("hash_kind_measured", {{"kind", kind},
                                   {"relative_cost", relative},
                                   {"floor_ms", milliseconds(hashing_.floor().current())}});
}

}  // namespace authd
