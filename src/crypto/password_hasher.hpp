// argon2id password hashing in PHC string format, through libsodium, and the
// verification of every other stored hash authd accepts (imported from other
// systems: crypto/legacy_hash.hpp, interface.md 10.5), which a match replaces
// with argon2id. Synchronous and slow on purpose: servers call it only from
// HashingPool.
#pragma once

#include <chrono>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace authd {

struct Argon2Params {
  std::size_t memory_kib = 19456;  // KiB; OWASP minimum: m = 19 MiB
  unsigned iterations = 2;         // OWASP minimum: t = 2 (libsodium fixes p = 1)
};

struct VerifyResult {
  bool matches = false;
  // Set when the password matched but its hash was made with other
  // parameters or a weaker algorithm: the caller stores this new hash.
  std::string upgraded_hash;
  // Set by the hashing pool: a failed check must not be answered before
  // this (when the verification started plus the verification floor,
  // crypto/verification_floor.hpp).
  std::chrono::steady_clock::time_point failure_not_before{};
};

class PasswordHasher {
 public:
  explicit PasswordHasher(Argon2Params params);

  // A PHC string "$argon2id$v=19$m=...,t=...,p=1$salt$hash".
  std::string hash(std::string_view password) const;

  // Verifies against any hash of interface.md 4.1 and 10.5: argon2id and
  // argon2i (one lane, version 19) through libsodium, everything else through
  // crypto/legacy_hash.hpp. Re-hashes with the current parameters when the
  // stored one is outdated or of another algorithm. A malformed or unknown
  // hash, or one over a cost cap of 10.5, never matches; nothing throws but
  // running out of memory.
  VerifyResult verify(std::string_view password, std::string_view phc) const;

  // Verifies against a hash of a random password with the current
  // parameters, so that an unknown account costs what a known one does.
  void verify_dummy(std::string_view password) const;

  const Argon2Params& params() const { return params_; }

  // The kind of the hashes this hasher makes (crypto/hash_kind.hpp), which
  // is also the dummy hash's.
  const std::string& own_kind() const { return own_kind_; }

  // A hash of `password` of the given kind, to measure what verifying that
  // kind costs: through libsodium where it can (argon2id, argon2i from t = 3,
  // one lane, version 19), else by the library that verifies the kind
  // (crypto/legacy_hash.hpp: libargon2, libxcrypt, OpenSSL). Nothing for a
  // text that is no kind, or a kind libsodium cannot make that is over a
  // cost cap of interface.md 10.5.
  std::optional<std::string> hash_of_kind(std::string_view kind, std::string_view password) const;

 private:
  bool needs_rehash(std::string_view phc) const;

  Argon2Params params_;
  std::string dummy_hash_;
  std::string own_kind_;
};

}  // namespace authd
