// Verifying and making the hashes read by crypto/legacy_hash_parse.hpp,
// each through a maintained library, never cryptography of authd's own
// (interface.md 10.5): libargon2 for the argon2 hashes libsodium does not
// take, libxcrypt's crypt_rn for bcrypt, "$7$" scrypt and SHA-crypt, OpenSSL
// for PBKDF2 and passlib's "$scrypt$". Derived keys are compared in constant
// time and wiped. Slow on purpose, like every hash: the hashing pool's
// workers call this (through PasswordHasher), never a connection thread.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "crypto/legacy_hash_parse.hpp"

namespace authd {

// True when `password` matches `stored`, which read as `parsed`. The caller
// has checked the cost caps (cost_problem()). A password holding a NUL byte
// never matches a crypt format: crypt(3) would stop reading it there.
bool parsed_hash_matches(const ParsedHash& parsed, std::string_view stored,
                         std::string_view password);

// A new hash of `password` with `cost` and a fresh random salt, in the
// format the cost belongs to; nothing when the library refuses. The caller
// has checked the cost caps.
std::optional<std::string> make_hash(const HashCost& cost, std::string_view password);

}  // namespace authd
