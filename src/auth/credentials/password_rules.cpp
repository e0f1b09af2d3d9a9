#include "auth/credentials/password_rules.hpp"

#include <sodium.h>
#include "auth/credentials/email.hpp"
#include "core/utf8.hpp"

#include "crypto/random.hpp"

namespace authd {

bool is_valid_login_password(std::string_view password) {
  std::size_t length = count_code_points(password);
  return length >= 1 && length <= kMaxPasswordLength;
}

bool is_well_formed_utf8(std::string_view text) {
  for (std::size_t i = 0; i < text.size();) {
    std::size_t length = utf8_sequence_length(text, i);
    if (length == 0) return false;
    i += length;
  }
  return true;
}

std::optional<std::string> new_password_length_problem(std::string_view password,
                                                       std::string_view field) {
  auto problem = [&](std::string_view rule) {
    return std::string(field) + ": " + std::string(rule);
  };
  if (!is_well_formed_utf8(password)) return problem("must be valid UTF-8");
  std::size_t length = count_code_points(password);
  if (length < kMinNewPasswordLength) return problem("must be at least 8 characters");
  if (length > kMaxPasswordLength) return problem("must be at most 255 characters");
  return std::nullopt;
}

std::optional<std::string> new_password_problem(std::string_view password,
                                                std::string_view canonical_email_address,
                                                std::string_view field) {
  if (auto problem = new_password_length_problem(password, field)) return problem;
  std::string lowered = canonical_email(password);
  bool same = constant_time_equal(lowered, canonical_email_address);
  sodium_memzero(lowered.data(), lowered.size());
  if (same) return std::string(field) + ": must not be the account's e-mail address";
  return std::nullopt;
}

}  // namespace authd
