// The text of the hashes crypto/legacy_hash_parse.hpp reads: the pieces
// every format's reader (crypto/legacy_hash_formats.hpp) takes off the
// front of a hash, and the base-64 decodings they use. Internal to the
// readers.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

namespace authd::legacy_hash {

// crypt's base-64 alphabet (SHA-crypt, "$7$"), and bcrypt's, which orders
// the same characters differently.
inline constexpr std::string_view kCryptAlphabet =
    "./0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
inline constexpr std::string_view kBcryptAlphabet =
    "./ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";

// `expected`, consumed; false (nothing consumed) when `text` does not start
// with it.
bool take_text(std::string_view& text, std::string_view expected);

// Everything up to `stop` (not consumed) or the end.
std::string_view take_field(std::string_view& text, char stop);

// A decimal number without sign or leading zero, consumed; more than 19
// digits read as kTooLargeNumber.
std::optional<std::uint64_t> take_decimal(std::string_view& text);

// '!' to '~': every character of every supported format.
bool printable_ascii(std::string_view text);

bool all_in(std::string_view text, std::string_view alphabet);

// Base 64 through libsodium (`variant` is one of sodium_base64_VARIANT_*):
// the whole of `text`, no more than `max` bytes.
std::optional<std::vector<unsigned char>> decode_base64(std::string_view text, int variant,
                                                        std::size_t max);

// passlib's base 64: '+' or '.' (its "ab64") as the 62nd character, no padding.
std::optional<std::vector<unsigned char>> decode_passlib_base64(std::string_view text,
                                                                std::size_t max);

}  // namespace authd::legacy_hash
