// Keeps the verification floor (crypto/verification_floor.hpp) in step with
// the kinds of password hashes the store holds (interface.md 6 /login 2 and
// 10.5): before the server listens, measures what verifying each stored kind
// costs against the server's own kind; then re-reads the set every
// kRefreshInterval and measures the kinds that appeared meanwhile (written by
// this instance, another one on the same database, or the CLI with other
// parameters). Measurements run on the hashing pool, like the logins they
// stand for, on a synthetic hash of the kind (never a user's).
#pragma once

#include <chrono>
#include <set>
#include <string>

#include "core/periodic_thread.hpp"

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
  // Verifications of a kind, each beside one of the server's own kind; the
  // median of their ratios is the kind's relative cost.
  static constexpr int kPairs = 5;

  HashKindsWatch(Store& store, HashingPool& hashing, const PasswordHasher& hasher);

  // Measures the server's own kind, then every stored kind. Blocks (on the
  // hashing pool); called once at start, before listening. False when the
  // store could not be read (the kinds are then measured at the next
  // refresh).
  bool measure_all();

  void start() { thread_.start(); }
  void stop() { thread_.stop(); }

 private:
  void refresh();
  bool measure_own();
  void measure(const std::string& kind);

  Store& store_;
  HashingPool& hashing_;
  const PasswordHasher& hasher_;
  std::string own_hash_;           // a synthetic hash of the server's own kind
  std::set<std::string> refused_;  // kinds that cannot be made here, reported once
  PeriodicThread thread_;
};

}  // namespace authd
