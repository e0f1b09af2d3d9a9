#include "core/time.hpp"

#include <ctime>

#include <fmt/format.h>

namespace authd {

std::string format_rfc3339(Millis at) {
  // Floor division so that instants before 1970 still format correctly.
  std::int64_t seconds = at / 1000;
  std::int64_t millis = at % 1000;
  if (millis < 0) {
    millis += 1000;
    seconds -= 1;
  }
  std::time_t t = static_cast<std::time_t>(seconds);
  std::tm tm{};
  gmtime_r(&t, &tm);
  return fmt::format("{:04}-{:02}-{:02}T{:02}:{:02}:{:02}.{:03}Z", tm.tm_year + 1900, tm.tm_mon + 1,
                     tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, millis);
}

}  // namespace authd
