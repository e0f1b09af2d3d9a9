#include "auth/password_rules.hpp"

#include <sodium.h>
#include "auth/email.hpp"
#include "core/utf8.hpp"

#include "crypto/random.hpp"

namespace authd {

bool is_valid_login_password(std::string_view password) {
  std::size_t length = count_code_points(password);
  return length >= 1 && length <= kMaxPasswordLength;
}

bool is_well_formed_utf8(std::string_view text) {
  auto byte = [&](std::size_t k) { return static_cast<unsigned char>(text[k]); };
  std::size_t i = 0;
  while (i < text.size()) {
    unsigned char lead = byte(i);
    std::size_t length = 0;
    unsigned char low = 0x80, high = 0xBF;  // allowed range of the second byte
    if (lead < 0x80) {
      length = 1;
    } else if (lead >= 0xC2 && lead <= 0xDF) {
      length = 2;
    } else if (lead >= 0xE0 && lead <= 0xEF) {
      length = 3;
      if (lead == 0xE0) low = 0xA0;   // no overlong forms
      if (lead == 0xED) high = 0x9F;  // no UTF-16 surrogates
    } else if (lead >= 0xF0 && lead <= 0xF4) {
      length = 4;
      if (lead == 0xF0) low = 0x90;   // no overlong forms
      if (lead == 0xF4) high = 0x8F;  // nothing above U+10FFFF
    } else {
      return false;
    }
    if (text.size() - i < length) return false;
    for (std::size_t k = 1; k < length; ++k) {
      unsigned char c = byte(i + k);
      unsigned char min = k == 1 ? low : 0x80;
      unsigned char max = k == 1 ? high : 0xBF;
      if (c < min || c > max) return false;
    }
    i += length;
  }
  return true;
}

std::optional<std::string> new_password_length_problem(std::string_view password) {
  if (!is_well_formed_utf8(password)) return "password: must be valid UTF-8";
  std::size_t length = count_code_points(password);
  if (length < kMinNewPasswordLength) return "password: must be at least 8 characters";
  if (length > kMaxPasswordLength) return "password: must be at most 255 characters";
  return std::nullopt;
}

std::optional<std::string> new_password_problem(std::string_view password,
                                                std::string_view canonical_email_address) {
  if (auto problem = new_password_length_problem(password)) return problem;
  std::string lowered = canonical_email(password);
  bool same = constant_time_equal(lowered, canonical_email_address);
  sodium_memzero(lowered.data(), lowered.size());
  if (same) return "password: must not be the account's e-mail address";
  return std::nullopt;
}

}  // namespace authd
