// UTF-8 helpers. Input strings come from the JSON parser, which already
// rejects ill-formed UTF-8, so these only count and never validate.
#pragma once

#include <cstddef>
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

}  // namespace authd
