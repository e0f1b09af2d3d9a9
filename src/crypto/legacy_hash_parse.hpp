// Reading the password hashes authd accepts from other systems (interface.md
// 10.5) into their parts: the algorithm and cost parameters (the hash's
// kind: crypto/legacy_hash_cost.hpp) and, where the verifying library takes
// them as bytes, the salt and digest. Only the text is handled here, never
// the cryptography: crypto/legacy_hash_verify.hpp hands each part to a
// maintained library. Strict, so that a hash that would never verify (cut
// short, with stray bits, in an alphabet its library refuses) is refused
// when it is imported rather than found out at its owner's first login.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "crypto/legacy_hash_cost.hpp"

namespace authd {

struct ParsedHash {
  HashCost cost;
  std::string kind;  // the cost in its text form: password_hash_kind()
  // Decoded for the formats whose library takes bytes (argon2, PBKDF2,
  // "$scrypt$"); empty for the crypt formats, which libxcrypt reads whole.
  std::vector<unsigned char> salt;
  std::vector<unsigned char> digest;
};

// A hash read, or why it cannot be: `problem` is short, names the format
// and what is wrong, and never holds any part of the hash but a cost
// parameter.
struct HashReading {
  std::optional<ParsedHash> parsed;
  std::string problem;
};

// Reads any hash of interface.md 10.5 (argon2 PHC strings included). The cost
// caps are not checked: see cost_problem().
HashReading read_password_hash(std::string_view hash);

// Reads a kind as password_hash_kind() writes it; nothing for any other
// text (the kind of every hash reads back to its cost).
std::optional<HashCost> read_hash_kind(std::string_view kind);

}  // namespace authd
