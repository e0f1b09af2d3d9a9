#include "crypto/password_hasher.hpp"

#include <stdexcept>
#include <string>

#include <sodium.h>

#include "crypto/random.hpp"

namespace authd {
namespace {

// libsodium wants NUL-terminated PHC strings; they are short and not secret.
std::string terminated(std::string_view phc) { return std::string(phc); }

}  // namespace

PasswordHasher::PasswordHasher(Argon2Params params) : params_(params) {
  if (params_.iterations < crypto_pwhash_argon2id_OPSLIMIT_MIN ||
      params_.memory_kib * 1024 < crypto_pwhash_argon2id_MEMLIMIT_MIN) {
    throw std::invalid_argument("argon2id parameters below libsodium's minimum");
  }
  dummy_hash_ = hash(new_secret_token("dummy_"));
}

std::string PasswordHasher::hash(std::string_view password) const {
  char out[crypto_pwhash_argon2id_STRBYTES];
  if (crypto_pwhash_argon2id_str(out, password.data(), password.size(), params_.iterations,
                                 params_.memory_kib * 1024) != 0) {
    throw std::runtime_error("argon2id hashing failed (out of memory?)");
  }
  return std::string(out);
}

VerifyResult PasswordHasher::verify(std::string_view password, std::string_view phc) const {
  VerifyResult result;
  std::string stored = terminated(phc);
  // crypto_pwhash_str_verify dispatches on the PHC prefix (argon2id or argon2i).
  result.matches = crypto_pwhash_str_verify(stored.c_str(), password.data(), password.size()) == 0;
  if (result.matches && needs_rehash(stored)) result.upgraded_hash = hash(password);
  return result;
}

void PasswordHasher::verify_dummy(std::string_view password) const {
  // The outcome is irrelevant (it never matches); only the cost matters.
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
