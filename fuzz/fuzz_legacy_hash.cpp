// Fuzz target: imported password hashes (crypto/legacy_hash.hpp,
// interface.md 10.5): whether a hash can be stored, its kind, and its
// verification with a wrong password. Only hashes far below the caps are
// verified (the caps allow seconds per hash; a fuzzer wants thousands of
// inputs a second); every other input must be refused without any hashing.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <optional>
#include <string>
#include <string_view>
#include <variant>

#include "crypto/hash_kind.hpp"
#include "crypto/legacy_hash.hpp"
#include "crypto/legacy_hash_parse.hpp"
#include "crypto/password_hasher.hpp"
#include "crypto/random.hpp"

namespace {

// At most about a millisecond to verify.
struct Cheap {
  bool operator()(const authd::Argon2Kind& k) const {
    return k.memory_kib <= 256 && k.iterations <= 2;
  }
  bool operator()(const authd::BcryptCost& k) const { return k.cost <= 5; }
  bool operator()(const authd::ScryptCost& k) const {
    return k.log2_n <= 10 && k.r * k.p <= 16 && (128 * k.r << k.log2_n) <= (1u << 20);
  }
  bool operator()(const authd::Pbkdf2Cost& k) const { return k.iterations <= 5000; }
  bool operator()(const authd::ShaCryptCost& k) const { return k.rounds <= 5000; }
};

const authd::PasswordHasher& hasher() {
  static const authd::PasswordHasher instance = [] {
    authd::init_crypto();
    return authd::PasswordHasher(authd::Argon2Params{64, 1});
  }();
  return instance;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view hash(reinterpret_cast<const char*>(data), size);
  std::optional<std::string> problem = authd::imported_hash_problem(hash);
  std::optional<std::string> kind = authd::password_hash_kind(hash);
  if (problem) {
    // Short and fixed in form: it names the problem, never the hash.
    if (problem->rfind("passwordHash: ", 0) != 0 || problem->size() > 160) std::abort();
    // Anything refused that libsodium does not parse is never hashed.
    if (!hash.starts_with("$argon2") && hasher().verify("not the password", hash).matches)
      std::abort();
    return 0;
  }
  // Accepted: it has a kind, which reads back and holds the cost alone.
  if (!kind || kind->size() > hash.size() + 12) std::abort();
  std::optional<authd::HashCost> cost = authd::read_hash_kind(*kind);
  if (!cost || authd::hash_kind_text(*cost) != *kind) std::abort();
  if (std::visit(Cheap{}, *cost)) {
    authd::VerifyResult result = hasher().verify("not the password", hash);
    if (result.matches || !result.upgraded_hash.empty()) std::abort();
  }
  return 0;
}
