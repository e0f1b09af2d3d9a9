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

namespace {

// `count` digits at `at`, or -1.
int digits(std::string_view text, std::size_t at, std::size_t count) {
  if (at + count > text.size()) return -1;
  int value = 0;
  for (std::size_t i = at; i < at + count; ++i) {
    if (text[i] < '0' || text[i] > '9') return -1;
    value = value * 10 + (text[i] - '0');
  }
  return value;
}

}  // namespace

std::optional<Millis> parse_rfc3339(std::string_view text) {
  using namespace std::chrono;
  // YYYY-MM-DDTHH:MM:SS
  int year = digits(text, 0, 4), month = digits(text, 5, 2), day = digits(text, 8, 2);
  int hour = digits(text, 11, 2), minute = digits(text, 14, 2), second = digits(text, 17, 2);
  if (text.size() < 20 || year < 0 || month < 0 || day < 0 || hour < 0 || minute < 0 ||
      second < 0 || text[4] != '-' || text[7] != '-' || (text[10] != 'T' && text[10] != 't') ||
      text[13] != ':' || text[16] != ':' || hour > 23 || minute > 59 || second > 60)
    return std::nullopt;
  year_month_day date{std::chrono::year(year), std::chrono::month(static_cast<unsigned>(month)),
                      std::chrono::day(static_cast<unsigned>(day))};
  if (!date.ok()) return std::nullopt;
  std::size_t at = 19;
  int millis = 0;
  if (text[at] == '.') {  // a fraction: its first three digits count
    std::size_t first = ++at;
    while (at < text.size() && text[at] >= '0' && text[at] <= '9') {
      if (at - first < 3) millis = millis * 10 + (text[at] - '0');
      ++at;
    }
    if (at == first) return std::nullopt;
    for (std::size_t n = at - first; n < 3; ++n) millis *= 10;
  }
  int offset_minutes = 0;
  if (at < text.size() && (text[at] == 'Z' || text[at] == 'z') && at + 1 == text.size()) {
    offset_minutes = 0;
  } else if (at + 6 == text.size() && (text[at] == '+' || text[at] == '-') && text[at + 3] == ':') {
    int oh = digits(text, at + 1, 2), om = digits(text, at + 4, 2);
    if (oh < 0 || om < 0 || oh > 23 || om > 59) return std::nullopt;
    offset_minutes = (oh * 60 + om) * (text[at] == '-' ? -1 : 1);
  } else {
    return std::nullopt;
  }
  sys_days days_since_epoch{date};
  Millis ms = duration_cast<milliseconds>(days_since_epoch.time_since_epoch()).count();
  ms += ((static_cast<Millis>(hour) * 60 + minute - offset_minutes) * 60 + std::min(second, 59)) *
        1000;
  return ms + millis;
}

}  // namespace authd
