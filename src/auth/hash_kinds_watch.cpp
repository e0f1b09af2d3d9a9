#include "auth/hash_kinds_watch.hpp"

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

bool HashKindsWatch::measure_all() {
  measure_own();
  std::vector<std::string> kinds;
  if (store_.run(Store::Mode::read, [&](Transaction& tx) {
        kinds = tx.users().password_hash_kinds();
      }) != StoreStatus::ok)
    return false;
  for (const std::string& kind : hashing_.floor().unmeasured(kinds)) measure(kind);
  log::info("login_floor", {{"floor_ms", milliseconds(hashing_.floor().current())},
                            {"kinds", static_cast<std::int64_t>(kinds.size())}});
  return true;
}

void HashKindsWatch::refresh() {
  std::vector<std::string> kinds;
  if (store_.run(Store::Mode::read, [&](Transaction& tx) {
        kinds = tx.users().password_hash_kinds();
      }) != StoreStatus::ok)
    return;
  std::vector<std::string> missing = hashing_.floor().unmeasured(kinds);
  for (const std::string& kind : missing) {
    if (thread_.stopping()) return;
    measure(kind);
  }
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
  log::info("hash_kind_measured", {{"kind", kind},
                                   {"relative_cost", relative},
                                   {"floor_ms", milliseconds(hashing_.floor().current())}});
}

}  // namespace authd
