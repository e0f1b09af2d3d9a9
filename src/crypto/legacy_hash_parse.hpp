// Reading the password hashes authd accepts from other systems (interface.md
// 10.5) into their parts: the algorithm and cost parameters (the hash's
// kind, crypto/hash_kind.hpp) and, where the verifying library takes them
// as bytes, the salt and digest. Only the text is handled here, never the
// cryptography: crypto/legacy_hash_verify.hpp hands each part to a
// maintained library. The cost caps that keep a single verification cheap
// enough to be no denial of service live here too, so that the import (which
// refuses a hash over a cap) and the verification (which never runs one)
// read the same numbers.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "crypto/hash_kind.hpp"

namespace authd {

// The cost caps of interface.md 10.5. At the caps one verification takes
// about a second on one core (argon2 and scrypt use up to 256 MiB each); the
// login floor follows the slowest stored kind, so a cap bounds every 401 of
// /login too.
inline constexpr std::uint64_t kArgon2MaxMemoryKib = 262144;  // 256 MiB
inline constexpr std::uint64_t kArgon2MaxPasses = 16;
inline constexpr unsigned kBcryptMaxCost = 15;
inline constexpr std::uint64_t kScryptMaxMemoryBytes = std::uint64_t{256} << 20;
// scrypt's r x p sizes the buffer its PBKDF2 steps fill (128 x r x p bytes)
// and, with N, its work: 16 passes over the largest memory, as argon2's caps.
inline constexpr std::uint64_t kScryptMaxBlockTimesParallelism = 256;
inline constexpr std::uint64_t kScryptMaxWorkBytes = kScryptMaxMemoryBytes * 16;
inline constexpr std::uint64_t kPbkdf2MaxIterations = 2'000'000;
inline constexpr std::uint64_t kShaCryptMaxRounds = 1'000'000;
inline constexpr std::uint64_t kShaCryptDefaultRounds = 5000;  // when "rounds=" is absent

// bcrypt "$2b$12": the variant letter (a, b or y) and the log2 cost.
struct BcryptCost {
  char variant = 'b';
  unsigned cost = 0;
};

// scrypt, as crypt's "$7$" or as passlib's "$scrypt$ln=,r=,p=": N = 2^log2_n.
struct ScryptCost {
  bool crypt_form = false;  // "$7$" (libxcrypt), else "$scrypt$" (OpenSSL)
  unsigned log2_n = 0;
  std::uint64_t r = 0;
  std::uint64_t p = 0;
};

enum class Pbkdf2Digest { sha1, sha256, sha512 };
// Its size in bytes, which is also the derived key's in both formats.
std::size_t pbkdf2_digest_size(Pbkdf2Digest digest);

// PBKDF2 as Django writes it ("pbkdf2_sha256$600000") or passlib
// ("$pbkdf2-sha256$29000").
struct Pbkdf2Cost {
  bool django = false;
  Pbkdf2Digest digest = Pbkdf2Digest::sha256;
  std::uint64_t iterations = 0;
};

// SHA-crypt "$5$" (SHA-256) or "$6$" (SHA-512), with its rounds.
struct ShaCryptCost {
  bool sha512 = false;
  std::uint64_t rounds = kShaCryptDefaultRounds;
};

// A hash's algorithm and cost parameters, read.
using HashCost = std::variant<Argon2Kind, BcryptCost, ScryptCost, Pbkdf2Cost, ShaCryptCost>;

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

// The kind's text form, e.g. "$2b$12", "$6$rounds=5000", "pbkdf2_sha256$600000".
std::string hash_kind_text(const HashCost& cost);

// Why `cost` is over a cap of interface.md 10.5 ("bcrypt cost 16 is over the
// cap of 15"), or nothing.
std::optional<std::string> cost_problem(const HashCost& cost);

// True when libsodium verifies and makes hashes of this argon2 kind
// (argon2id or argon2i, version 19, one lane); libargon2 does the others.
bool libsodium_argon2(const Argon2Kind& kind);

}  // namespace authd
