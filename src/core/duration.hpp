// Human-friendly durations for configuration: "500ms", "10s", "15m", "24h", "7d".
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <string_view>

namespace authd {

using Duration = std::chrono::milliseconds;

std::optional<Duration> parse_duration(std::string_view text);
std::string format_duration(Duration d);

// A retry's delay after `attempts` failed attempts: `first` after the
// first, doubled after each other, never more than `max` (the outbox and
// the webhook deliveries).
Duration capped_backoff(int attempts, Duration first, Duration max);

// A throttling limit: at most `count` events within any `window`.
struct RateLimit {
  int count = 0;
  Duration window{0};
};

// The largest COUNT a limit may have. A throttle check reads up to COUNT
// stored events of its key (the newest ones), and never more than the
// window holds, so COUNT bounds the work of every counted request. A
// million is the conventional "out of the way" value (tests, benchmarks,
// earlier configurations); anything larger, or 0, is a mistake.
inline constexpr int kMaxRateLimitCount = 1'000'000;

// "10/15m" -> {10, 15 minutes}; COUNT from 1 to kMaxRateLimitCount.
std::optional<RateLimit> parse_rate_limit(std::string_view text);
std::string format_rate_limit(const RateLimit& limit);

}  // namespace authd
