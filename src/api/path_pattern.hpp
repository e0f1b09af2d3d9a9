// Route paths with a parameter (interface.md 11.3: /sessions/{id}). A
// pattern is a path whose segments are literal, or "{name}": a segment that
// matches any one non-empty segment of the request's path. Matching is on
// the path as sent (no decoding, no normalisation, as for literal routes).
#pragma once

#include <string_view>

namespace authd {

// True when `path` matches `pattern`; `parameter` is then the segment that
// matched the pattern's "{...}" (empty when it has none).
constexpr bool match_path(std::string_view pattern, std::string_view path,
                          std::string_view& parameter) {
  std::string_view found;
  while (!pattern.empty() || !path.empty()) {
    if (pattern.empty() || path.empty() || pattern.front() != '/' || path.front() != '/')
      return false;
    pattern.remove_prefix(1);
    path.remove_prefix(1);
    std::string_view want = pattern.substr(0, pattern.find('/'));
    std::string_view got = path.substr(0, path.find('/'));
    bool is_parameter = want.size() > 2 && want.front() == '{' && want.back() == '}';
    if (is_parameter ? got.empty() : want != got) return false;
    if (is_parameter) found = got;
    pattern.remove_prefix(want.size());
    path.remove_prefix(got.size());
  }
  parameter = found;
  return true;
}

}  // namespace authd
