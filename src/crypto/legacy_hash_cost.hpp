// The cost of a password hash of any format authd accepts (interface.md 4.1
// and 10.5): its algorithm and parameters, read from the hash or its kind
// (crypto/legacy_hash_parse.hpp), written as the kind (crypto/hash_kind.hpp),
// and checked against the cost caps. The caps live in one place so that the
// import, which refuses a hash over a cap, the verification, which never runs
// one, and the login floor's measurements, which never make one, agree.
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <variant>

#include "crypto/hash_kind.hpp"

namespace authd {

// The cost caps of interface.md 10.5: what one verification may take of a
// hashing worker, in memory (argon2 and scrypt up to 256 MiB each) and time
// (seconds at the caps;
// docs/design/threat-model/credentials-and-timing.md#imported-password-hashes).
// The login floor follows the slowest stored kind, so a cap bounds every 401 of
// /login too.
inline constexpr std::uint64_t kArgon2MaxMemoryKib = 262144;  // 256 MiB
inline constexpr std::uint64_t kArgon2MaxPasses = 16;
inline constexpr unsigned kBcryptMaxCost = 15;
inline constexpr std::uint64_t kScryptMaxMemoryBytes = std::uint64_t{256} << 20;
// scrypt's r x p sizes the buffer its PBKDF2 steps fill (128 x r x p
// bytes), and p multiplies its time without its memory: its work,
// 128 x N x r x p bytes, is capped at four passes over the largest memory,
// which take scrypt about as long as argon2 takes for 16 passes over 256 MiB
// (scrypt is some three times slower per byte).
inline constexpr std::uint64_t kScryptMaxBlockTimesParallelism = 256;
inline constexpr std::uint64_t kScryptMaxWorkBytes = kScryptMaxMemoryBytes * 4;
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

// A number of more than 19 digits, read as this: over every cap, and never
// written back in a problem.
inline constexpr std::uint64_t kTooLargeNumber = std::numeric_limits<std::uint64_t>::max();

// The kind's text form, e.g. "$2b$12", "$6$rounds=5000", "pbkdf2_sha256$600000".
std::string hash_kind_text(const HashCost& cost);

// Why `cost` is over a cap of interface.md 10.5 ("bcrypt cost 16 is over the
// cap of 15"), or nothing.
std::optional<std::string> cost_problem(const HashCost& cost);

// True when libsodium verifies and makes hashes of this argon2 kind
// (argon2id or argon2i, version 19, one lane); libargon2 does the others.
bool libsodium_argon2(const Argon2Kind& kind);

}  // namespace authd
