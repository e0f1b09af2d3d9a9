// Wall-clock time as the store and the API see it: integer milliseconds since
// the Unix epoch, formatted as RFC 3339 UTC with milliseconds.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace authd {

using Millis = std::int64_t;  // milliseconds since 1970-01-01T00:00:00Z

inline Millis now_millis() {
  using namespace std::chrono;
  return duration_cast<milliseconds>(system_clock::now().time_since_epoch()).count();
}

// A JWT's NumericDate (RFC 7519 2): whole seconds since the epoch.
inline std::int64_t epoch_seconds(Millis at) { return at / 1000; }

// "2026-11-21T09:30:00.123Z"
std::string format_rfc3339(Millis at);
// The same, appended to `out` (no string of its own: a User body has four).
void append_rfc3339(std::string& out, Millis at);

// An RFC 3339 date-time ("2026-11-21T09:30:00Z", with optional fraction
// and a Z or +hh:mm offset) as milliseconds; nothing when it is not one.
std::optional<Millis> parse_rfc3339(std::string_view text);

inline std::optional<std::string> format_rfc3339(std::optional<Millis> at) {
  if (!at) return std::nullopt;
  return format_rfc3339(*at);
}

}  // namespace authd
