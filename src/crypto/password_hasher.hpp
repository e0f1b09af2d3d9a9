// argon2id password hashing in PHC string format, through libsodium.
// Synchronous and slow on purpose: servers call it only from HashingPool.
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

  // Verifies against any PHC string libsodium knows (argon2id, argon2i);
  // re-hashes with the current parameters when the stored one is outdated.
  VerifyResult verify(std::string_view password, std::string_view phc) const;

  // Verifies against a hash of a random password with the current
  // parameters, so that an unknown account costs what a known one does.
  void verify_dummy(std::string_view password) const;

  const Argon2Params& params() const { return params_; }

  // The kind of the hashes this hasher makes (crypto/hash_kind.hpp), which
  // is also the dummy hash's.
  const std::string& own_kind() const { return own_kind_; }

  // A hash of `password` of the given kind, to measure what verifying that
  // kind costs; nothing for a kind libsodium cannot make (argon2d, p other
  // than 1, a version other than 19, argon2i under t = 3, memory or passes
  // out of libsodium's range).
  std::optional<std::string> hash_of_kind(std::string_view kind, std::string_view password) const;

 private:
  bool needs_rehash(std::string_view phc) const;

  Argon2Params params_;
  std::string dummy_hash_;
  std::string own_kind_;
};

}  // namespace authd
