// UTF-8 helpers. count_code_points takes strings from the JSON parser,
// which already rejects ill-formed UTF-8, so it only counts; the others
// take bytes from anywhere (a terminal, an HTTP header).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace authd {

// Number of Unicode code points in well-formed UTF-8 (JSON Schema's notion of
// string length: one emoji is one, whatever its byte count).
inline std::size_t count_code_points(std::string_view utf8) {
  std::size_t count = 0;
  for (unsigned char c : utf8) {
    if ((c & 0xC0) != 0x80) ++count;  // every byte that is not a continuation byte
  }
  return count;
}

// The length of the well-formed UTF-8 sequence at `text[at]` (strict: no
// overlong forms, no surrogates, nothing above U+10FFFF), or 0 when the
// bytes there are not one.
std::size_t utf8_sequence_length(std::string_view text, std::size_t at);

// At most `max_bytes` bytes of well-formed UTF-8 from the start of `bytes`:
// a character that would cross the limit is left out whole, and each byte
// that is not part of a well-formed sequence becomes U+FFFD (three bytes,
// counted against the limit). Text that is well-formed and short enough
// comes back unchanged.
std::string utf8_prefix(std::string_view bytes, std::size_t max_bytes);

}  // namespace authd
