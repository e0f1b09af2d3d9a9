#include "crypto/legacy_hash_text.hpp"

#include <charconv>
#include <string>

#include <sodium.h>

#include "crypto/legacy_hash_cost.hpp"

namespace authd::legacy_hash {

bool take_text(std::string_view& text, std::string_view expected) {
  if (text.substr(0, expected.size()) != expected) return false;
  text.remove_prefix(expected.size());
  return true;
}

// Everything up to `stop` (not consumed) or the end.
std::string_view take_field(std::string_view& text, char stop) {
  std::string_view field = text.substr(0, text.find(stop));
  text.remove_prefix(field.size());
  return field;
}

// A decimal number without sign or leading zero, consumed; more than 19
// digits read as kTooLargeNumber.
std::optional<std::uint64_t> take_decimal(std::string_view& text) {
  std::size_t length = 0;
  while (length < text.size() && text[length] >= '0' && text[length] <= '9') ++length;
  if (length == 0 || (length > 1 && text[0] == '0')) return std::nullopt;
  std::uint64_t value = kTooLargeNumber;
  if (length <= 19) std::from_chars(text.data(), text.data() + length, value);
  text.remove_prefix(length);
  return value;
}

// '!' to '~': every character of every supported format.
bool printable_ascii(std::string_view text) {
  for (char c : text) {
    if (c < '!' || c > '~') return false;
  }
  return true;
}

bool all_in(std::string_view text, std::string_view alphabet) {
  return text.find_first_not_of(alphabet) == std::string_view::npos;
}

// Base 64 through libsodium: the whole of `text`, no more than `max` bytes.
std::optional<std::vector<unsigned char>> decode_base64(std::string_view text, int variant,
                                                        std::size_t max) {
  std::vector<unsigned char> bytes(text.size() * 3 / 4 + 1);
  std::size_t length = 0;
  const char* end = nullptr;
  if (sodium_base642bin(bytes.data(), bytes.size(), text.data(), text.size(), nullptr, &length,
                        &end, variant) != 0 ||
      end != text.data() + text.size() || length > max)
    return std::nullopt;
  bytes.resize(length);
  return bytes;
}

// passlib's base 64: '+' or '.' (its "ab64") as the 62nd character, no padding.
std::optional<std::vector<unsigned char>> decode_passlib_base64(std::string_view text,
                                                                std::size_t max) {
  std::string standard(text);
  for (char& c : standard) {
    if (c == '.') c = '+';
  }
  return decode_base64(standard, sodium_base64_VARIANT_ORIGINAL_NO_PADDING, max);
}

}  // namespace authd::legacy_hash
