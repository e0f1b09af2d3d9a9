// ASCII for protocol text: trimming a field value's blanks (HTTP's optional
// white space, spaces and tabs), and case folding for header values ("chunked",
// "100-continue"), auth schemes ("Bearer"), media types, host names.
// Not std::tolower: that one follows the C locale of the process, and a
// protocol keyword must compare the same whatever locale is set (in a
// Turkish locale, 'I' does not lower to 'i'). Only 'A' to 'Z' fold; every
// other byte, UTF-8 included, compares as itself.
#pragma once

#include <cstddef>
#include <string_view>

namespace authd {

constexpr char ascii_lower(char c) {
  return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c;
}

constexpr bool equals_ignoring_case(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (ascii_lower(a[i]) != ascii_lower(b[i])) return false;
  }
  return true;
}

// `text` without the spaces and tabs around it.
constexpr std::string_view trim_blanks(std::string_view text) {
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
  while (!text.empty() && (text.back() == ' ' || text.back() == '\t')) text.remove_suffix(1);
  return text;
}

}  // namespace authd
