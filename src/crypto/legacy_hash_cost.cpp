#include "crypto/legacy_hash_cost.hpp"

#include <string_view>

namespace authd {
namespace {

constexpr std::string_view kCryptDigits =
    "./0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

// " 123", or nothing for a number too large to be worth repeating.
std::string value_text(std::uint64_t value) {
  return value == kTooLargeNumber ? std::string() : " " + std::to_string(value);
}

// "256 MiB", rounded up.
std::string mebibytes(std::uint64_t bytes) {
  return std::to_string((bytes + (std::uint64_t{1} << 20) - 1) >> 20) + " MiB";
}

// crypt's base 64 of `value`, least significant first, in `count` characters.
std::string crypt_digits(std::uint64_t value, int count) {
  std::string text;
  for (int i = 0; i < count; ++i) text += kCryptDigits[(value >> (6 * i)) & 63];
  return text;
}

std::string_view pbkdf2_name(const Pbkdf2Cost& cost) {
  switch (cost.digest) {
    case Pbkdf2Digest::sha1:
      return cost.django ? "pbkdf2_sha1$" : "$pbkdf2-sha1$";
    case Pbkdf2Digest::sha256:
      return cost.django ? "pbkdf2_sha256$" : "$pbkdf2-sha256$";
    case Pbkdf2Digest::sha512:
      return cost.django ? "pbkdf2_sha512$" : "$pbkdf2-sha512$";
  }
  return "";
}

struct KindText {
  std::string operator()(const Argon2Kind& k) const {
    return "$" + k.algorithm + "$v=" + std::to_string(k.version) +
           "$m=" + std::to_string(k.memory_kib) + ",t=" + std::to_string(k.iterations) +
           ",p=" + std::to_string(k.lanes);
  }
  std::string operator()(const BcryptCost& k) const {
    return std::string("$2") + k.variant + "$" + (k.cost < 10 ? "0" : "") + std::to_string(k.cost);
  }
  std::string operator()(const ScryptCost& k) const {
    if (k.crypt_form)
      return "$7$" + crypt_digits(k.log2_n, 1) + crypt_digits(k.r, 5) + crypt_digits(k.p, 5);
    return "$scrypt$ln=" + std::to_string(k.log2_n) + ",r=" + std::to_string(k.r) +
           ",p=" + std::to_string(k.p);
  }
  std::string operator()(const Pbkdf2Cost& k) const {
    return std::string(pbkdf2_name(k)) + std::to_string(k.iterations);
  }
  std::string operator()(const ShaCryptCost& k) const {
    return (k.sha512 ? "$6$rounds=" : "$5$rounds=") + std::to_string(k.rounds);
  }
};

std::optional<std::string> scrypt_cost_problem(const ScryptCost& k) {
  // 128 x r x N bytes, N = 2^log2_n; above 2^21 it is over the cap whatever r.
  std::uint64_t memory = k.log2_n > 21 ? kTooLargeNumber : (128 * k.r) << k.log2_n;
  if (k.log2_n > 21 || memory > kScryptMaxMemoryBytes) {
    std::string mib = memory == kTooLargeNumber ? "" : " " + mebibytes(memory);
    return "scrypt memory (128 x r x N bytes)" + mib + " is over the cap of " +
           mebibytes(kScryptMaxMemoryBytes);
  }
  if (k.r * k.p > kScryptMaxBlockTimesParallelism)
    return "scrypt r x p = " + std::to_string(k.r * k.p) + " is over the cap of " +
           std::to_string(kScryptMaxBlockTimesParallelism);
  if (memory * k.p > kScryptMaxWorkBytes)
    return "scrypt work (128 x N x r x p bytes) is over the cap of " +
           mebibytes(kScryptMaxWorkBytes);
  return std::nullopt;
}

struct CostProblem {
  std::optional<std::string> operator()(const Argon2Kind& k) const {
    if (k.memory_kib > kArgon2MaxMemoryKib)
      return "argon2 memory m=" + std::to_string(k.memory_kib) + " KiB is over the cap of " +
             std::to_string(kArgon2MaxMemoryKib) + " KiB (" +
             mebibytes(kArgon2MaxMemoryKib * 1024) + ")";
    if (k.iterations > kArgon2MaxPasses)
      return "argon2 passes t=" + std::to_string(k.iterations) + " are over the cap of " +
             std::to_string(kArgon2MaxPasses);
    return std::nullopt;
  }
  std::optional<std::string> operator()(const BcryptCost& k) const {
    if (k.cost <= kBcryptMaxCost) return std::nullopt;
    return "bcrypt cost " + std::to_string(k.cost) + " is over the cap of " +
           std::to_string(kBcryptMaxCost);
  }
  std::optional<std::string> operator()(const ScryptCost& k) const {
    return scrypt_cost_problem(k);
  }
  std::optional<std::string> operator()(const Pbkdf2Cost& k) const {
    if (k.iterations <= kPbkdf2MaxIterations) return std::nullopt;
    return "PBKDF2 iterations" + value_text(k.iterations) + " are over the cap of " +
           std::to_string(kPbkdf2MaxIterations);
  }
  std::optional<std::string> operator()(const ShaCryptCost& k) const {
    if (k.rounds <= kShaCryptMaxRounds) return std::nullopt;
    return "SHA-crypt rounds" + value_text(k.rounds) + " are over the cap of " +
           std::to_string(kShaCryptMaxRounds);
  }
};

}  // namespace

std::string hash_kind_text(const HashCost& cost) { return std::visit(KindText{}, cost); }

std::optional<std::string> cost_problem(const HashCost& cost) {
  return std::visit(CostProblem{}, cost);
}

std::size_t pbkdf2_digest_size(Pbkdf2Digest digest) {
  switch (digest) {
    case Pbkdf2Digest::sha1:
      return 20;
    case Pbkdf2Digest::sha256:
      return 32;
    case Pbkdf2Digest::sha512:
      return 64;
  }
  return 0;
}

bool libsodium_argon2(const Argon2Kind& kind) {
  return (kind.algorithm == "argon2id" || kind.algorithm == "argon2i") && kind.version == 19 &&
         kind.lanes == 1;
}

}  // namespace authd
