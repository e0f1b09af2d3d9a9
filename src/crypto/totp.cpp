#include "crypto/totp.hpp"

#include <array>
#include <stdexcept>

#include <liboath/oath.h>
#include <sodium.h>

#include "core/wipe.hpp"

namespace authd {
namespace {

// liboath keeps no state between calls, but its API asks for oath_init()
// once per process (it checks the library's version).
void ensure_oath() {
  static const int status = oath_init();
  if (status != OATH_OK) throw std::runtime_error("liboath failed to start");
}

bool six_digits(std::string_view code) {
  if (code.size() != static_cast<std::size_t>(kTotpDigits)) return false;
  for (char c : code)
    if (c < '0' || c > '9') return false;
  return true;
}

}  // namespace

std::string new_totp_secret() {
  std::string secret(kTotpSecretBytes, '\0');
  randombytes_buf(secret.data(), secret.size());
  return secret;
}

std::string base32_secret(std::string_view secret) {
  ensure_oath();
  char* encoded = nullptr;
  std::size_t length = 0;
  if (oath_base32_encode(secret.data(), secret.size(), &encoded, &length) != OATH_OK)
    throw std::runtime_error("base32 encoding failed");
  std::string text(encoded, length);
  sodium_memzero(encoded, length);
  free(encoded);  // NOLINT(cppcoreguidelines-no-malloc): liboath allocates with malloc
  while (!text.empty() && text.back() == '=') text.pop_back();
  return text;
}

std::int64_t totp_step(std::int64_t unix_seconds) {
  // Floor division: a step number never rounds towards zero before 1970.
  std::int64_t step = unix_seconds / kTotpStepSeconds;
  if (unix_seconds % kTotpStepSeconds < 0) --step;
  return step;
}

std::string totp_code(std::string_view secret, std::int64_t step) {
  ensure_oath();
  std::array<char, kTotpDigits + 1> code{};
  if (step < 0 ||
      oath_hotp_generate(secret.data(), secret.size(), static_cast<std::uint64_t>(step),
                         kTotpDigits, false, OATH_HOTP_DYNAMIC_TRUNCATION, code.data()) != OATH_OK)
    throw std::runtime_error("TOTP computation failed");
  return std::string(code.data(), kTotpDigits);
}

std::optional<std::int64_t> matching_totp_step(std::string_view secret, std::string_view code,
                                               std::int64_t current_step) {
  if (!six_digits(code)) return std::nullopt;
  std::optional<std::int64_t> matched;
  for (std::int64_t step = current_step - 1; step <= current_step + 1; ++step) {
    std::string expected = totp_code(secret, step);
    bool equal = sodium_memcmp(expected.data(), code.data(), expected.size()) == 0;
    wipe(expected);
    if (equal && !matched) matched = step;
  }
  return matched;
}

}  // namespace authd
