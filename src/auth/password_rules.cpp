#include "auth/password_rules.hpp"

#include "auth/email.hpp"
#include "core/utf8.hpp"
#include <sodium.h>

#include "crypto/random.hpp"

namespace authd {

bool is_valid_login_password(std::string_view password) {
  std::size_t length = count_code_points(password);
  return length >= 1 && length <= kMaxPasswordLength;
}

std::optional<std::string> new_password_length_problem(std::string_view password) {
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
