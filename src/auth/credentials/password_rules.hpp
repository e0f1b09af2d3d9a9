// The password rules of interface.md sections 3.2 and 3.3. Lengths are in
// Unicode code points; passwords are never normalised or trimmed.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace authd {

constexpr std::size_t kMaxPasswordLength = 255;
constexpr std::size_t kMinNewPasswordLength = 8;

// Login: 1 to 255 code points, any content.
bool is_valid_login_password(std::string_view password);

// A new password (reset, operator): 8 to 255 code points and not the
// account's e-mail (compared case-insensitively). Returns the broken rule as
// a short human-readable reason naming the body's `field`, or nothing when
// the password is acceptable.
std::optional<std::string> new_password_problem(std::string_view password,
                                                std::string_view canonical_email,
                                                std::string_view field = "password");

// Only the length rule, for checks that run before the account is known.
std::optional<std::string> new_password_length_problem(std::string_view password,
                                                       std::string_view field = "password");

// Strict UTF-8 (no overlong forms, no surrogates, nothing above U+10FFFF).
// Text from JSON is already well-formed; text from the operator's terminal,
// stdin or argv is not, and a password that is not UTF-8 could never be
// typed into a JSON login again.
bool is_well_formed_utf8(std::string_view text);

}  // namespace authd
