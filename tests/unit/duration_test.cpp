// core/duration: the configuration syntax for durations and rate limits.
#include <gtest/gtest.h>

#include "core/duration.hpp"

namespace authd {
namespace {

using namespace std::chrono_literals;

TEST(Duration, ParsesEveryUnit) {
  EXPECT_EQ(parse_duration("500ms"), Duration(500));
  EXPECT_EQ(parse_duration("10s"), Duration(10s));
  EXPECT_EQ(parse_duration("15m"), Duration(15min));
  EXPECT_EQ(parse_duration("24h"), Duration(24h));
  EXPECT_EQ(parse_duration("7d"), Duration(168h));
}

TEST(Duration, RejectsMalformedText) {
  for (const char* text :
       {"", "s", "10", "10x", "-5s", "1.5h", " 10s", "10s ", "99999999999999d"}) {
    EXPECT_FALSE(parse_duration(text).has_value()) << text;
  }
}

TEST(Duration, FormatsInTheLargestExactUnit) {
  EXPECT_EQ(format_duration(Duration(24h)), "1d");
  EXPECT_EQ(format_duration(Duration(15min)), "15m");
  EXPECT_EQ(format_duration(Duration(1500)), "1500ms");
  EXPECT_EQ(parse_duration(format_duration(Duration(90s))), Duration(90s));
}

TEST(RateLimit, ParsesCountAndWindow) {
  auto limit = parse_rate_limit("10/15m");
  ASSERT_TRUE(limit.has_value());
  EXPECT_EQ(limit->count, 10);
  EXPECT_EQ(limit->window, Duration(15min));
  EXPECT_EQ(format_rate_limit(*limit), "10/15m");
}

TEST(RateLimit, RejectsMalformedText) {
  for (const char* text : {"", "10", "/15m", "10/", "0/15m", "10/0s", "x/15m", "10/15", "-1/15m"}) {
    EXPECT_FALSE(parse_rate_limit(text).has_value()) << text;
  }
}

// A throttle check reads up to COUNT events, so COUNT is bounded:
// 1 to kMaxRateLimitCount (1,000,000), nothing beyond.
TEST(RateLimit, CountIsFromOneToTheDocumentedMaximum) {
  EXPECT_EQ(kMaxRateLimitCount, 1'000'000);
  ASSERT_TRUE(parse_rate_limit("1/1s").has_value());
  ASSERT_TRUE(parse_rate_limit("1000000/1h").has_value());
  EXPECT_EQ(parse_rate_limit("1000000/1h")->count, 1'000'000);
  for (const char* text : {"0/1m", "1000001/1h", "99999999999/1m"})
    EXPECT_FALSE(parse_rate_limit(text).has_value()) << text;
}

}  // namespace
}  // namespace authd
