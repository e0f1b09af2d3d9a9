// core/time: interface.md 2.4 (timestamps are RFC 3339 in UTC with
// milliseconds, "2026-11-21T09:30:00.123Z").
#include <gtest/gtest.h>

#include <regex>

#include "core/time.hpp"

namespace authd {
namespace {

// interface.md 2.4: known instants, with milliseconds always present.
TEST(Time, FormatsKnownInstantsInRfc3339UtcWithMilliseconds) {
  EXPECT_EQ(format_rfc3339(0), "1970-01-01T00:00:00.000Z");
  EXPECT_EQ(format_rfc3339(1), "1970-01-01T00:00:00.001Z");
  EXPECT_EQ(format_rfc3339(999), "1970-01-01T00:00:00.999Z");
  EXPECT_EQ(format_rfc3339(1000), "1970-01-01T00:00:01.000Z");
  EXPECT_EQ(format_rfc3339(1'000'000'000'000), "2001-09-09T01:46:40.000Z");
  EXPECT_EQ(format_rfc3339(1'795'253'400'123), "2026-11-21T09:30:00.123Z");
  EXPECT_EQ(format_rfc3339(951'782'400'000), "2000-02-29T00:00:00.000Z");  // leap day
  EXPECT_EQ(format_rfc3339(253'402'300'799'999), "9999-12-31T23:59:59.999Z");
}

// interface.md 2.4: instants before 1970 (floor, not truncation).
TEST(Time, FormatsInstantsBefore1970) {
  EXPECT_EQ(format_rfc3339(-1), "1969-12-31T23:59:59.999Z");
  EXPECT_EQ(format_rfc3339(-1000), "1969-12-31T23:59:59.000Z");
  EXPECT_EQ(format_rfc3339(-1001), "1969-12-31T23:59:58.999Z");
  EXPECT_EQ(format_rfc3339(-86'400'000), "1969-12-31T00:00:00.000Z");
  EXPECT_EQ(format_rfc3339(-14'182'940'000), "1969-07-20T20:17:40.000Z");
}

// Appending keeps what was there and writes the same text after it.
TEST(Time, AppendWritesAfterWhatIsThere) {
  std::string out = R"({"createdAt":")";
  append_rfc3339(out, 1'795'253'400'123);
  EXPECT_EQ(out, R"({"createdAt":"2026-11-21T09:30:00.123Z)");
  append_rfc3339(out, -1);
  EXPECT_EQ(out, R"({"createdAt":"2026-11-21T09:30:00.123Z1969-12-31T23:59:59.999Z)");
}

// interface.md 2.4: the shape holds for the present too.
TEST(Time, NowHasTheRfc3339Shape) {
  std::regex shape(R"(^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$)");
  EXPECT_TRUE(std::regex_match(format_rfc3339(now_millis()), shape));
  EXPECT_FALSE(format_rfc3339(std::optional<Millis>()).has_value());
  EXPECT_EQ(format_rfc3339(std::optional<Millis>(0)), "1970-01-01T00:00:00.000Z");
}

}  // namespace
}  // namespace authd
