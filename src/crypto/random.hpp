// Secrets and identifiers from the OS CSPRNG (libsodium), and the digests and
// encodings that go with them. Nothing here is home-made cryptography.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace authd {

// Must be called once before any other function of crypto/; idempotent.
void init_crypto();

using Sha256Digest = std::array<std::uint8_t, 32>;

Sha256Digest sha256(std::string_view data);

// base64url without padding (RFC 4648 section 5).
std::string base64url(const std::uint8_t* data, std::size_t size);
inline std::string base64url(std::string_view bytes) {
  return base64url(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size());
}
// Its inverse: the bytes, or nothing when `text` is not unpadded base64url
// (padding, other characters, or trailing bits set).
std::optional<std::string> from_base64url(std::string_view text);

// A bearer secret: `prefix` followed by 256 bits from the CSPRNG in base64url,
// e.g. "authd_3q2-7w...". The prefix lets secret scanners recognise leaks.
std::string new_secret_token(std::string_view prefix);

// A UUID version 7 (RFC 9562): 48-bit Unix milliseconds, then random bits.
std::string new_uuid_v7(std::int64_t unix_millis);

// The same from random bits the caller drew (80 bits, of which 74 are kept).
using UuidRandomBits = std::array<std::uint8_t, 10>;
std::string uuid_v7(std::int64_t unix_millis, const UuidRandomBits& random);

// An account's id: a UUIDv7 greater than every id this process made before,
// even within one millisecond or after the clock stepped back (RFC 9562
// 6.2, method 2: the random bits of the previous id plus a random
// increment), so that listing users by id is listing them in creation
// order (interface.md 10.4). Thread-safe.
std::string new_account_id(std::int64_t unix_millis);

// A UUID version 4 (RFC 9562): 122 random bits. For identifiers that must
// say nothing, not even when they were made (a session's public id).
std::string new_uuid_v4();

// 8-4-4-4-12 lowercase hexadecimal digits, as authd writes every UUID.
bool is_canonical_uuid(std::string_view text);

// Constant-time equality for secrets of equal length.
bool constant_time_equal(std::string_view a, std::string_view b);

}  // namespace authd
