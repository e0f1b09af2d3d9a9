// The kind of a stored password hash: its algorithm and cost parameters, the
// part of the string that decides how long verifying it takes, never its
// salt or digest. "$argon2id$v=19$m=19456,t=2,p=1" is the kind of every
// hash of "$argon2id$v=19$m=19456,t=2,p=1$<salt>$<digest>". The store keeps
// the set of kinds of the hashes it holds, and the login floor follows the
// slowest of them (crypto/verification_floor.hpp,
// docs/design/threat-model/credentials-and-timing.md#timing-of-login-for-every-stored-hash).
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace authd {

// The kind of `phc`, or nothing when it is not a hash whose kind authd can
// read: an argon2id, argon2i or argon2d PHC string
// "$argon2X$v=N$m=N,t=N,p=N$...", digits only in the numbers (the result
// stops before the salt: it holds no secret; its lanes are written p=1
// whatever the hash's, since they change nothing of what verifying it
// costs: "$argon2id$v=19$m=65536,t=3,p=1" also for a hash with p=4), or a
// well-formed hash of the
// other formats of interface.md 10.5 (crypto/legacy_hash.hpp), whose kind is
// its algorithm and cost alone: "$2b$12", "$6$rounds=5000" (also for a hash
// without "rounds="), "$7$" and its 11 characters of N, r and p,
// "$scrypt$ln=16,r=8,p=1", "pbkdf2_sha256$600000", "$pbkdf2-sha512$25000".
std::optional<std::string> password_hash_kind(std::string_view phc);

// The numbers of an argon2 kind, read back; nothing for any other text.
struct Argon2Kind {
  std::string algorithm;  // "argon2id", "argon2i" or "argon2d"
  unsigned long version = 0;
  unsigned long memory_kib = 0;
  unsigned long iterations = 0;
  unsigned long lanes = 0;
};
std::optional<Argon2Kind> parse_argon2_kind(std::string_view kind);
// The numbers of a whole argon2 PHC string (salt and digest after them), its
// lanes as written; nothing for any other text.
std::optional<Argon2Kind> parse_argon2_hash(std::string_view phc);

}  // namespace authd
