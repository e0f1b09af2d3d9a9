#include "auth/login/hash_admission.hpp"

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdio>
#include <vector>

#include "crypto/hash_kind.hpp"
#include "crypto/hashing_pool.hpp"
#include "crypto/password_hasher.hpp"
#include "crypto/random.hpp"
#include "store/database.hpp"

namespace authd {
namespace {

using Nanos = VerificationFloor::Nanos;

std::string too_many_stored_problem() {
  return "passwordHash: " + std::to_string(kMostStoredKinds) +
         " kinds of hash are stored already, the most there may be; a hash of a kind not "
         "stored yet is refused";
}

std::string too_many_new_problem() {
  return "passwordHash: this import has brought " + std::to_string(kMostNewKindsPerRun) +
         " kinds of hash not stored before, the most one run may; import the rest in another "
         "run";
}

bool is_listed(const std::vector<std::string>& kinds, const std::string& kind) {
  return std::find(kinds.begin(), kinds.end(), kind) != kinds.end();
}

// How long one verification of `phc` with a wrong password takes here.
double verification_ns(const PasswordHasher& hasher, const std::string& phc) {
  std::string wrong = new_secret_token("measure_");
  auto started = std::chrono::steady_clock::now();
  [[maybe_unused]] VerifyResult ignored = hasher.verify(wrong, phc);
  return static_cast<double>(Nanos(std::chrono::steady_clock::now() - started).count());
}

}  // namespace

std::string costly_kind_problem(std::string_view kind, double relative) {
  char cost[32];
  std::snprintf(cost, sizeof cost, "%.0f", relative);
  char cap[32];
  std::snprintf(cap, sizeof cap, "%.0f", VerificationFloor::kRefusedAbove);
  return "passwordHash: " + std::string(kind) + " costs " + cost +
         " times the server's own argon2id to verify, over the limit of " + cap +
         " (--allow-costly-hashes accepts it)";
}

boost::asio::awaitable<HashAdmission> admit_stored_hash(AuthContext& ctx, const std::string& phc) {
  HashAdmission admission;
  const std::string kind = password_hash_kind(phc).value_or("");
  std::vector<std::string> stored;
  auto read = [&](Transaction& tx) { stored = tx.users().password_hash_kinds(); };
  if (co_await ctx.db.read(read) != StoreStatus::ok) co_return admission;  // unavailable
  if (!is_listed(stored, kind) && stored.size() >= kMostStoredKinds) {
    admission.kind = HashAdmission::Kind::refused;
    admission.problem = too_many_stored_problem();
    co_return admission;
  }
  VerificationFloor& floor = ctx.hashing.floor();
  std::optional<double> relative = floor.relative_cost(kind);
  bool measured_now = false;
  if (!relative) {
    // Not known here yet: one verification, on one worker at a time; one
    // over the limit twice more, the least counting (a busy machine only
    // adds time: a refusal should not be its doing).
    std::optional<Nanos> took = co_await ctx.hashing.timed_verification(phc);
    for (int again = 0;
         again < 2 && took && floor.own_cost().count() > 0 &&
         static_cast<double>(took->count()) >
             VerificationFloor::kRefusedAbove * static_cast<double>(floor.own_cost().count());
         ++again) {
      std::optional<Nanos> retimed = co_await ctx.hashing.timed_verification(phc);
      if (retimed) took = std::min(*took, *retimed);
    }
    if (!took) {
      admission.kind = HashAdmission::Kind::busy;
      co_return admission;
    }
    Nanos own = floor.own_cost();
    if (own.count() > 0) {
      relative = static_cast<double>(took->count()) / static_cast<double>(own.count());
      measured_now = true;
    }
  }
  if (relative && *relative > VerificationFloor::kRefusedAbove && !ctx.policy.allow_costly_hashes) {
    admission.kind = HashAdmission::Kind::refused;
    admission.problem = costly_kind_problem(kind, *relative);
    co_return admission;  // learnt by nobody: a refused kind never lifts the floor
  }
  if (measured_now) floor.learn_relative_cost(kind, *relative);
  admission.kind = HashAdmission::Kind::admitted;
  co_return admission;
}

ImportedKinds::ImportedKinds(Store& store, const PasswordHasher& hasher, bool allow_costly)
    : store_(store), hasher_(hasher), allow_costly_(allow_costly) {}

bool ImportedKinds::read_stored() {
  std::vector<HashKindCost> kinds;
  if (store_.run(Store::Mode::read,
                 [&](Transaction& tx) { kinds = tx.users().hash_kind_costs(); }) != StoreStatus::ok)
    return false;
  for (const HashKindCost& kind : kinds) {
    bool usable = kind.relative_cost && kind.cost_basis == hasher_.own_kind();
    stored_[kind.kind] = usable ? kind.relative_cost : std::nullopt;
  }
  read_ = true;
  return true;
}

double ImportedKinds::cost_of(const std::string& kind, const std::string& phc) {
  if (kind == hasher_.own_kind()) return 1.0;
  auto stored = stored_.find(kind);
  if (stored != stored_.end() && stored->second) return *stored->second;
  auto measured = measured_.find(kind);
  if (measured != measured_.end()) return measured->second;
  if (own_ns_ <= 0) {
    // The own kind's cost, once: the median of three.
    std::string own = hasher_.hash(new_secret_token("measure_"));
    std::array<double, 3> costs{};
    for (double& cost : costs) cost = verification_ns(hasher_, own);
    std::sort(costs.begin(), costs.end());
    own_ns_ = std::max(costs[1], 1.0);
  }
  // One timing; one over the limit is timed twice more and the least of
  // the three counts: a busy machine only ever adds time, and a refusal
  // should not be its doing.
  double relative = verification_ns(hasher_, phc) / own_ns_;
  for (int again = 0; again < 2 && relative > VerificationFloor::kRefusedAbove; ++again)
    relative = std::min(relative, verification_ns(hasher_, phc) / own_ns_);
  measured_[kind] = relative;
  return relative;
}

std::optional<std::string> ImportedKinds::problem(const std::string& phc, bool& store_failed) {
  if (!read_ && !read_stored()) {
    store_failed = true;
    return std::nullopt;
  }
  const std::string kind = password_hash_kind(phc).value_or("");
  bool stored = stored_.count(kind) != 0;
  if (!stored && new_admitted_.count(kind) == 0) {
    if (stored_.size() + new_admitted_.size() >= kMostStoredKinds) return too_many_stored_problem();
    if (new_admitted_.size() >= kMostNewKindsPerRun) return too_many_new_problem();
  }
  double relative = cost_of(kind, phc);
  if (relative > VerificationFloor::kRefusedAbove && !allow_costly_)
    return costly_kind_problem(kind, relative);
  if (!stored) new_admitted_.insert(kind);
  return std::nullopt;
}

}  // namespace authd
