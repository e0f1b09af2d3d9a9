// Keeps the verification floor (crypto/verification_floor.hpp) in step with
// the kinds of password hashes the store holds (interface.md 6 /login 2 and
// 10.5). At start it measures the server's own kind and takes each stored
// kind's last measured cost from the store, without waiting for any other
// measurement; then, in the background, it re-reads the set every
// kRefreshInterval, measures the kinds that have no cost measured against
// the server's own kind (written meanwhile by this instance, another one on
// the same database, or the CLI) and stores their costs, and every
// kReconcileEvery readings drops the kinds that no stored hash has any more
// (UserStore::reconcile_hash_kinds). Measurements run on the hashing pool,
// like the logins they stand for, on a synthetic hash of the kind (never a
// user's).
#pragma once

#include <chrono>
#include <set>
#include <string>
#include <vector>

#include "core/periodic_thread.hpp"
#include "store/records.hpp"

namespace authd {

class HashingPool;
class PasswordHasher;
class Store;

class HashKindsWatch {
 public:
  // How often the set is read again: a kind written by another instance
  // (or the CLI) is in the floor at most this long, plus its measurement,
  // after it is stored; until then its own verifications teach the floor
  // its cost (VerificationFloor::observe). One indexed read of a table of a
  // few rows.
  static constexpr std::chrono::seconds kRefreshInterval{10};
  // Readings between two reconciliations (the first reading reconciles):
  // each reads every stored hash once, in one write transaction.
  static constexpr int kReconcileEvery = 60;
  // Verifications of a kind, each beside one of the server's own kind; the
  // median of their ratios is the kind's relative cost.
  static constexpr int kPairs = 5;
  // A floor above this is said at start (and when a measurement lifts it
  // there): every 401 of /login then waits that long.
  static constexpr std::chrono::seconds kFloorWarning{1};

  HashKindsWatch(Store& store, HashingPool& hashing, const PasswordHasher& hasher);

  // Measures the server's own kind (a few verifications of it) and takes
  // the stored costs of the other kinds; measures none of them. Called
  // once at start, before listening. False when the store could not be
  // read (the kinds are then read at the first refresh).
  bool start_with_stored_costs();

  void start() { thread_.start(); }
  void stop() { thread_.stop(); }

 private:
  void refresh();
  bool reconcile();  // true when it dropped a kind
  bool measure_own();
  void measure(const std::string& kind);
  // Takes the stored costs measured against the own kind; returns the
  // kinds still to measure.
  std::vector<std::string> take_stored(const std::vector<HashKindCost>& kinds);
  void say_floor(const char* event, std::size_t kinds, std::size_t unmeasured);

  Store& store_;
  HashingPool& hashing_;
  const PasswordHasher& hasher_;
  std::string own_hash_;           // a synthetic hash of the server's own kind
  std::set<std::string> refused_;  // kinds that cannot be made here, reported once
  int readings_ = 0;
  bool floor_warned_ = false;
  PeriodicThread thread_;
};

}  // namespace authd
