// The floor under the time of a failed password check: no 401 of /login
// leaves sooner than this after its verification started (interface.md 6
// /login 2 and 10.5). It follows the slowest kind of hash stored, so that a
// wrong password for an account whose hash is cheaper to verify (older
// parameters, a legacy algorithm) takes as long as an unknown e-mail, and an
// unknown e-mail as long as a wrong password for the dearest hash.
//
// Costs are kept relative to the server's own kind (its argon2 parameters,
// the kind of the dummy hash): each kind's cost is measured against it, side
// by side on the hashing pool (auth/login/hash_kinds_watch.hpp), and what a
// verification of the server's kind costs right now is followed from every
// verification the pool runs. So the floor rises and falls with the load of
// the machine, while the order of the kinds, which the load does not
// change, is measured once:
//
//   floor = kMargin x (slowest relative cost) x (current cost of the
//           server's kind)
//
// Limits. The margin keeps ordinary variation of a verification under the
// floor; a verification that still takes longer (a sudden stall, a machine
// far busier than a moment before) answers when it ends, and is counted
// (overruns(), authd_login_floor_overruns_total). A kind not measured yet
// is learnt from its own verifications until the watch has measured it.
// Thread-safe; every call takes one short lock.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace authd {

class VerificationFloor {
 public:
  using Nanos = std::chrono::nanoseconds;

  // 1.5: on the test machine (two shared cores, builds running beside)
  // single verifications spread about 20% around their recent level, rarely
  // beyond 40%. Every 401 pays the margin on top of the slowest hash (it
  // costs latency, not a hashing worker: the wait is a timer).
  static constexpr double kMargin = 1.5;
  // Weight of each new observation in the current cost (about the last ten
  // verifications count), and how far one observation may move it: a
  // single stall of seconds must not lift the floor of every later 401.
  static constexpr double kWeight = 0.2;
  static constexpr double kLargestStep = 4.0;

  // The rules of costly kinds (interface.md 10.5). A failed verification
  // counts as many failures in the throttles as it costs verifications of
  // the own kind (charge()), less kChargeTolerance for the spread of a
  // measurement: a kind within 10% of the own counts one. Kinds dearer
  // than kOneWorkerAbove run on one hashing worker at a time; kinds dearer
  // than kRefusedAbove are refused as new hashes unless the operator allows
  // them (--allow-costly-hashes).
  static constexpr double kChargeTolerance = 0.1;
  static constexpr double kOneWorkerAbove = 10.0;
  static constexpr double kRefusedAbove = 20.0;

  explicit VerificationFloor(std::string own_kind);

  const std::string& own_kind() const { return own_kind_; }

  // A measured cost of the server's own kind; the first one starts the
  // floor (until then it is zero: nothing waits).
  void set_own_cost(Nanos cost);
  // A kind's cost relative to the server's own (1.0: the same), measured.
  void set_relative_cost(const std::string& kind, double relative);
  // A kind's cost measured once, outside the watch (a new hash checked
  // before it is stored): taken like a learnt one, until measured.
  void learn_relative_cost(const std::string& kind, double relative);
  // Forgets a kind that no stored hash has any more: the floor falls.
  void drop(const std::string& kind);
  // Forgets every kind but the own and those of `kinds` (the stored set).
  void retain(const std::vector<std::string>& kinds);
  // The kinds among `kinds` that have no measured relative cost yet.
  std::vector<std::string> unmeasured(const std::vector<std::string>& kinds) const;

  // What `kind` costs relative to the own kind, measured or learnt (1 for
  // the own kind); nothing for a kind not known yet.
  std::optional<double> relative_cost(const std::string& kind) const;
  // The failures a failed verification of `kind` counts in the throttles:
  // ceil(relative cost - kChargeTolerance), at least 1 (1 for a kind not
  // known yet: its verification teaches its cost).
  int charge(const std::string& kind) const;
  // True when verifications of `kind` run on one worker at a time: dearer
  // than kOneWorkerAbove, or readable and not known yet.
  bool one_at_a_time(const std::string& kind) const;
  // The largest relative cost of the kinds known (at least 1).
  double slowest() const;
  // The current cost of one verification of the own kind (0 before the
  // first measurement).
  Nanos own_cost() const;

  // The floor now: what a failed verification that starts now must last.
  Nanos current() const;

  // One verification of `kind` (empty: a kind authd cannot read) that took
  // `elapsed`, after `floor` had been taken for it. Moves the current cost;
  // a kind never measured is learnt from it.
  void observe(const std::string& kind, Nanos elapsed, Nanos floor);

  std::uint64_t overruns() const;  // verifications longer than their floor

 private:
  struct Cost {
    double relative = 1.0;
    bool measured = false;  // else learnt from verifications
  };

  double slowest_locked() const;

  const std::string own_kind_;
  mutable std::mutex mutex_;
  std::map<std::string, Cost> kinds_;  // the own kind is 1.0 by definition
  double own_cost_ns_ = 0;             // current cost of one verification of the own kind
  std::uint64_t overruns_ = 0;
};

}  // namespace authd
