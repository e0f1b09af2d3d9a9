// TOTP (RFC 6238) for the second factor (interface.md 12): HMAC-SHA1,
// 30-second steps, 6 digits, computed by liboath (Debian's oath-toolkit),
// never by an HMAC of our own. The secret is 160 random bits.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace authd {

inline constexpr std::int64_t kTotpStepSeconds = 30;
inline constexpr int kTotpDigits = 6;
inline constexpr std::size_t kTotpSecretBytes = 20;  // 160 bits (RFC 4226 4, R6)

// A fresh secret from the CSPRNG (raw bytes).
std::string new_totp_secret();

// RFC 4648 base32, upper case, without padding (20 bytes: 32 characters),
// as authenticator apps take it in an otpauth:// URI.
std::string base32_secret(std::string_view secret);

// The time step of a Unix time: floor(seconds / 30).
std::int64_t totp_step(std::int64_t unix_seconds);

// The code of one step (6 digits).
std::string totp_code(std::string_view secret, std::int64_t step);

// The step among `current - 1`, `current`, `current + 1` whose code is
// `code`, or nothing. Every candidate is computed and compared in constant
// time, so the answer's time does not say which step (if any) matched.
// Anything but 6 ASCII digits matches nothing.
std::optional<std::int64_t> matching_totp_step(std::string_view secret, std::string_view code,
                                               std::int64_t current_step);

}  // namespace authd
