#include "crypto/verification_floor.hpp"

#include <algorithm>
#include <cmath>

namespace authd {

VerificationFloor::VerificationFloor(std::string own_kind) : own_kind_(std::move(own_kind)) {
  kinds_[own_kind_] = Cost{1.0, true};
}

void VerificationFloor::set_own_cost(Nanos cost) {
  std::lock_guard lock(mutex_);
  own_cost_ns_ = static_cast<double>(cost.count());
}

void VerificationFloor::set_relative_cost(const std::string& kind, double relative) {
  if (kind == own_kind_ || !(relative > 0)) return;
  std::lock_guard lock(mutex_);
  kinds_[kind] = Cost{relative, true};
}

void VerificationFloor::learn_relative_cost(const std::string& kind, double relative) {
  if (kind == own_kind_ || !(relative > 0)) return;
  std::lock_guard lock(mutex_);
  Cost& cost = kinds_[kind];
  if (!cost.measured) cost.relative = relative;
}

void VerificationFloor::drop(const std::string& kind) {
  if (kind == own_kind_) return;
  std::lock_guard lock(mutex_);
  kinds_.erase(kind);
}

void VerificationFloor::retain(const std::vector<std::string>& kinds) {
  std::lock_guard lock(mutex_);
  std::erase_if(kinds_, [&](const auto& entry) {
    return entry.first != own_kind_ &&
           std::find(kinds.begin(), kinds.end(), entry.first) == kinds.end();
  });
}

std::optional<double> VerificationFloor::relative_cost(const std::string& kind) const {
  std::lock_guard lock(mutex_);
  auto found = kinds_.find(kind);
  if (found == kinds_.end()) return std::nullopt;
  return found->second.relative;
}

int VerificationFloor::charge(const std::string& kind) const {
  std::optional<double> relative = relative_cost(kind);
  if (!relative) return 1;
  double counted = std::ceil(*relative - kChargeTolerance);
  // Beyond any throttle's limit, more changes nothing.
  return static_cast<int>(std::clamp(counted, 1.0, 1e6));
}

bool VerificationFloor::one_at_a_time(const std::string& kind) const {
  if (kind.empty()) return false;  // never computed (crypto/legacy_hash.hpp)
  std::optional<double> relative = relative_cost(kind);
  return !relative || *relative > kOneWorkerAbove;
}

double VerificationFloor::slowest() const {
  std::lock_guard lock(mutex_);
  return slowest_locked();
}

VerificationFloor::Nanos VerificationFloor::own_cost() const {
  std::lock_guard lock(mutex_);
  return Nanos(static_cast<Nanos::rep>(own_cost_ns_));
}

std::vector<std::string> VerificationFloor::unmeasured(
    const std::vector<std::string>& kinds) const {
  std::lock_guard lock(mutex_);
  std::vector<std::string> missing;
  for (const std::string& kind : kinds) {
    auto found = kinds_.find(kind);
    if (found == kinds_.end() || !found->second.measured) missing.push_back(kind);
  }
  return missing;
}

double VerificationFloor::slowest_locked() const {
  double slowest = 1.0;
  for (const auto& [kind, cost] : kinds_) slowest = std::max(slowest, cost.relative);
  return slowest;
}

VerificationFloor::Nanos VerificationFloor::current() const {
  std::lock_guard lock(mutex_);
  return Nanos(static_cast<Nanos::rep>(kMargin * slowest_locked() * own_cost_ns_));
}

void VerificationFloor::observe(const std::string& kind, Nanos elapsed, Nanos floor) {
  if (elapsed <= Nanos::zero()) return;
  std::lock_guard lock(mutex_);
  if (floor > Nanos::zero() && elapsed > floor) ++overruns_;
  if (kind.empty()) return;  // a kind authd cannot read: counted, not learnt
  auto found = kinds_.find(kind);
  if (own_cost_ns_ <= 0) return;  // nothing measured yet to relate it to
  double took = static_cast<double>(elapsed.count());
  if (found == kinds_.end() || !found->second.measured) {
    // Not measured yet: learn its cost from what it takes against the
    // current cost of the own kind (an average, like the current cost).
    double relative = took / own_cost_ns_;
    if (found == kinds_.end()) {
      kinds_[kind] = Cost{relative, false};
    } else {
      found->second.relative += kWeight * (relative - found->second.relative);
    }
    return;
  }
  // A measured kind: what a verification of the own kind would have taken.
  double own_equivalent = took / found->second.relative;
  own_equivalent =
      std::clamp(own_equivalent, own_cost_ns_ / kLargestStep, own_cost_ns_ * kLargestStep);
  own_cost_ns_ += kWeight * (own_equivalent - own_cost_ns_);
}

std::uint64_t VerificationFloor::overruns() const {
  std::lock_guard lock(mutex_);
  return overruns_;
}

}  // namespace authd
