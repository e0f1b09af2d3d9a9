// The floor under the time of a failed password check: no 401 of /login
// leaves sooner than this after its verification started (interface.md 6
// /login 2 and 10.5). It follows the slowest kind of hash stored, so that a
// wrong password for an account whose hash is cheaper to verify (older
// parameters, a legacy algorithm) takes as long as an unknown e-mail, and an
// unknown e-mail as long as a wrong password for the dearest hash.
//
// Costs are kept relative to the server's own kind (its argon2 parameters,
// the kind of the dummy hash): each kind's cost is measured against it, side
// by side on the hashing pool (auth/hash_kinds_watch.hpp), and what a
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

  explicit VerificationFloor(std::string own_kind);

  const std::string& own_kind() const { return own_kind_; }

  // A measured cost of the server's own kind; the first one starts the
  // floor (until then it is zero: nothing waits).
  void set_own_cost(Nanos cost);
  // A kind's cost relative to the server's own (1.0: the same), measured.
  void set_relative_cost(const std::string& kind, double relative);
  // The kinds among `kinds` that have no measured relative cost yet.
  std::vector<std::string> unmeasured(const std::vector<std::string>& kinds) const;

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
