#include "crypto/password_hasher.hpp"

#include <cstddef>
#include <stdexcept>
#include <string>

#include <sodium.h>

#include "crypto/argon2_memory.hpp"
#include "crypto/hash_kind.hpp"
#include "crypto/legacy_hash.hpp"
#include "crypto/legacy_hash_parse.hpp"
#include "crypto/random.hpp"

namespace authd {
namespace {

// libsodium wants NUL-terminated PHC strings; they are short and not secret.
std::string terminated(std::string_view phc) { return std::string(phc); }

// The m (KiB) of a PHC string's parameters ("$argon2id$v=19$m=19456,t=2,p=1$
// ..."), or 0 when there is none to read: then nothing is reused.
std::size_t phc_memory_kib(std::string_view phc) {
  std::size_t at = phc.find("$m=");
  if (at == std::string_view::npos) return 0;
  std::size_t kib = 0;
  for (std::size_t i = at + 3; i < phc.size() && phc[i] >= '0' && phc[i] <= '9'; ++i) {
    kib = kib * 10 + static_cast<std::size_t>(phc[i] - '0');
    if (kib > (std::size_t{1} << 32)) return 0;  // beyond any argon2 memory
  }
  return kib;
}

// True when libsodium verifies `phc` (argon2id or argon2i, version 19, one
// lane); every other hash goes to crypto/legacy_hash.hpp.
bool verified_by_libsodium(std::string_view phc) {
  if (!phc.starts_with("$argon2")) return false;
  std::optional<Argon2Kind> parsed = parse_argon2_hash(phc);
  return parsed && libsodium_argon2(*parsed);
}

}  // namespace

PasswordHasher::PasswordHasher(Argon2Params params) : params_(params) {
  if (params_.iterations < crypto_pwhash_argon2id_OPSLIMIT_MIN ||
      params_.memory_kib * 1024 < crypto_pwhash_argon2id_MEMLIMIT_MIN) {
    throw std::invalid_argument("argon2id parameters below libsodium's minimum");
  }
  dummy_hash_ = hash(new_secret_token("dummy_"));
  own_kind_ = password_hash_kind(dummy_hash_).value_or("");
}

std::optional<std::string> PasswordHasher::hash_of_kind(std::string_view kind,
                                                        std::string_view password) const {
  std::optional<Argon2Kind> parsed = parse_argon2_kind(kind);
  if (!parsed || !libsodium_argon2(*parsed)) return legacy_hash_of_kind(kind, password);
  bool id = parsed->algorithm == "argon2id";
  unsigned long long ops = parsed->iterations;
  std::size_t memory = static_cast<std::size_t>(parsed->memory_kib) * 1024;
  // libsodium's ranges: the same for both but the least number of passes.
  static_assert(crypto_pwhash_argon2i_OPSLIMIT_MAX == crypto_pwhash_argon2id_OPSLIMIT_MAX &&
                crypto_pwhash_argon2i_MEMLIMIT_MIN == crypto_pwhash_argon2id_MEMLIMIT_MIN &&
                crypto_pwhash_argon2i_MEMLIMIT_MAX == crypto_pwhash_argon2id_MEMLIMIT_MAX);
  unsigned long long least_ops =
      id ? crypto_pwhash_argon2id_OPSLIMIT_MIN : crypto_pwhash_argon2i_OPSLIMIT_MIN;
  if (ops < least_ops || ops > crypto_pwhash_argon2id_OPSLIMIT_MAX ||
      memory < crypto_pwhash_argon2id_MEMLIMIT_MIN || memory > crypto_pwhash_argon2id_MEMLIMIT_MAX)
    return legacy_hash_of_kind(kind, password);  // libargon2, within the caps
  char out[crypto_pwhash_argon2id_STRBYTES];
  static_assert(crypto_pwhash_argon2id_STRBYTES >= crypto_pwhash_argon2i_STRBYTES);
  Argon2Call call(parsed->memory_kib);
  int failed = id ? crypto_pwhash_argon2id_str(out, password.data(), password.size(), ops, memory)
                  : crypto_pwhash_argon2i_str(out, password.data(), password.size(), ops, memory);
  if (failed != 0) return std::nullopt;
  return std::string(out);
}

std::string PasswordHasher::hash(std::string_view password) const {
  char out[crypto_pwhash_argon2id_STRBYTES];
  Argon2Call call(params_.memory_kib);
  if (crypto_pwhash_argon2id_str(out, password.data(), password.size(), params_.iterations,
                                 params_.memory_kib * 1024) != 0) {
    throw std::runtime_error("argon2id hashing failed (out of memory?)");
  }
  return std::string(out);
}

VerifyResult PasswordHasher::verify(std::string_view password, std::string_view phc) const {
  VerifyResult result;
  if (!verified_by_libsodium(phc)) {
    // Any other format of interface.md 10.5, or garbage (never a match).
    // Never the current kind: a match is always re-hashed.
    result.matches = legacy_hash_matches(password, phc);
    if (result.matches) result.upgraded_hash = hash(password);
    return result;
  }
  std::string stored = terminated(phc);
  // crypto_pwhash_str_verify dispatches on the PHC prefix (argon2id or argon2i).
  Argon2Call call(phc_memory_kib(stored));
  result.matches = crypto_pwhash_str_verify(stored.c_str(), password.data(), password.size()) == 0;
  if (result.matches && needs_rehash(stored)) result.upgraded_hash = hash(password);
  return result;
}

void PasswordHasher::verify_dummy(std::string_view password) const {
  // The outcome is irrelevant (it never matches); only the cost matters.
  Argon2Call call(params_.memory_kib);
  [[maybe_unused]] int ignored =
      crypto_pwhash_str_verify(dummy_hash_.c_str(), password.data(), password.size());
}

bool PasswordHasher::needs_rehash(std::string_view phc) const {
  std::string stored = terminated(phc);
  // Non-zero for other parameters, and -1 for another algorithm (argon2i).
  return crypto_pwhash_argon2id_str_needs_rehash(stored.c_str(), params_.iterations,
                                                 params_.memory_kib * 1024) != 0;
}

}  // namespace authd
