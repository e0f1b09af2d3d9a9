#include "core/duration.hpp"

#include <algorithm>
#include <charconv>
#include <utility>

namespace authd {
namespace {

constexpr std::pair<std::string_view, long long> kUnits[] = {
    {"ms", 1}, {"s", 1000}, {"m", 60'000}, {"h", 3'600'000}, {"d", 86'400'000},
};

std::optional<long long> parse_positive_integer(std::string_view digits) {
  long long value = 0;
  auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
  if (ec != std::errc{} || end != digits.data() + digits.size() || value < 0) return std::nullopt;
  return value;
}

}  // namespace

std::optional<Duration> parse_duration(std::string_view text) {
  std::size_t split = 0;
  while (split < text.size() && text[split] >= '0' && text[split] <= '9') ++split;
  if (split == 0) return std::nullopt;
  auto value = parse_positive_integer(text.substr(0, split));
  if (!value) return std::nullopt;
  std::string_view unit = text.substr(split);
  for (auto [name, factor] : kUnits) {
    if (unit == name) {
      if (*value > (1LL << 50) / factor) return std::nullopt;  // absurdly large
      return Duration(*value * factor);
    }
  }
  return std::nullopt;
}

std::string format_duration(Duration d) {
  long long ms = d.count();
  // Largest unit that divides the value exactly, so the text parses back.
  for (auto it = std::rbegin(kUnits); it != std::rend(kUnits); ++it) {
    if (ms != 0 && ms % it->second == 0)
      return std::to_string(ms / it->second) + std::string(it->first);
  }
  return std::to_string(ms) + "ms";
}

std::optional<RateLimit> parse_rate_limit(std::string_view text) {
  auto slash = text.find('/');
  if (slash == std::string_view::npos) return std::nullopt;
  auto count = parse_positive_integer(text.substr(0, slash));
  auto window = parse_duration(text.substr(slash + 1));
  if (!count || !window || *count < 1 || *count > kMaxRateLimitCount || window->count() <= 0)
    return std::nullopt;
  return RateLimit{static_cast<int>(*count), *window};
}

std::string format_rate_limit(const RateLimit& limit) {
  return std::to_string(limit.count) + "/" + format_duration(limit.window);
}

Duration capped_backoff(int attempts, Duration first, Duration max) {
  Duration delay = first;
  for (int i = 1; i < attempts && delay < max; ++i) delay *= 2;
  return std::min(delay, max);
}

}  // namespace authd
