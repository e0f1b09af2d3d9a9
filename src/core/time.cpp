#include "core/time.hpp"

#include <chrono>

#include <fmt/compile.h>
#include <fmt/format.h>

namespace authd {

std::string format_rfc3339(Millis at) {
  std::string text;
  append_rfc3339(text, at);
  return text;
}

void append_rfc3339(std::string& out, Millis at) {
  // Calendar arithmetic, not gmtime_r: glibc's takes a process-wide lock,
  // and a GET /me formats four instants. floor() keeps instants before 1970
  // right.
  using namespace std::chrono;
  sys_time<milliseconds> instant{milliseconds(at)};
  auto day = floor<days>(instant);
  year_month_day date{day};
  hh_mm_ss<milliseconds> time{instant - day};
  int year = static_cast<int>(date.year());
  if (year < 0 || year > 9999) {  // not RFC 3339, but still shown
    out += fmt::format(FMT_COMPILE("{:04}-{:02}-{:02}T{:02}:{:02}:{:02}.{:03}Z"), year,
                       static_cast<unsigned>(date.month()), static_cast<unsigned>(date.day()),
                       time.hours().count(), time.minutes().count(), time.seconds().count(),
                       time.subseconds().count());
    return;
  }
  const std::size_t start = out.size();
  out += "0000-00-00T00:00:00.000Z";
  auto put = [&out, start](std::size_t offset, std::size_t digits, long long value) {
    for (std::size_t i = digits; i-- > 0; value /= 10)
      out[start + offset + i] = static_cast<char>('0' + value % 10);
  };
  put(0, 4, year);
  put(5, 2, static_cast<unsigned>(date.month()));
  put(8, 2, static_cast<unsigned>(date.day()));
  put(11, 2, time.hours().count());
  put(14, 2, time.minutes().count());
  put(17, 2, time.seconds().count());
  put(20, 3, time.subseconds().count());
}

}  // namespace authd
