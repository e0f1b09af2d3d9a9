// Password hashes made by other systems, for moving their users to authd
// (interface.md 10.5): argon2id, argon2i and argon2d PHC strings with any
// lanes, bcrypt, scrypt ("$7$" and passlib's "$scrypt$"), PBKDF2 (Django's
// and passlib's) and SHA-crypt ("$5$", "$6$"). The admin API and `authd user
// import` ask whether a hash can be stored; PasswordHasher verifies the
// stored ones and makes hashes of their kinds for the login floor. Costs are
// capped, so that one stored hash cannot make each verification of it, and
// with the floor every 401 of /login, a denial of service. The first login
// that matches replaces the hash with argon2id (interface.md 4.2).
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace authd {

// Why `hash` cannot be stored as an imported password hash, or nothing
// when it can: one of the formats of interface.md 10.5, well-formed, within
// the cost caps. The reason is short, names the format and the problem
// (e.g. "passwordHash: bcrypt cost 16 is over the cap of 15"), and never
// echoes any part of the hash.
std::optional<std::string> imported_hash_problem(std::string_view hash);

// True when `password` matches `stored`, a hash of any format above within
// the caps (argon2 ones included, through libargon2 whatever libsodium
// could do); false for anything else: malformed, unknown, over a cap.
// Never throws but for memory.
bool legacy_hash_matches(std::string_view password, std::string_view stored);

// A hash of `password` of `kind` (crypto/hash_kind.hpp) with a fresh salt,
// made by the library that verifies it; nothing for a kind over a cap or no
// kind at all.
std::optional<std::string> legacy_hash_of_kind(std::string_view kind, std::string_view password);

}  // namespace authd
