// http/request_id: interface.md 1.9 (the client's X-Request-Id if it sent
// exactly one of 1 to 128 characters of A-Z a-z 0-9 . _ : -, otherwise a
// generated one).
#include <gtest/gtest.h>

#include <regex>
#include <set>
#include <string>
#include <vector>

#include "http/request_id.hpp"

namespace authd {
namespace {

// interface.md 1.9: 1 to 128 characters of the allowed set are acceptable.
TEST(RequestId, AcceptsOneTo128AllowedCharacters) {
  for (std::string id :
       {std::string("a"), std::string(128, 'x'), std::string("Z"), std::string("0"),
        std::string("."), std::string("_"), std::string(":"), std::string("-"),
        std::string("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._:-"),
        std::string("req-2026-11-21T09:30:00.123Z_abc"),
        std::string("0190f5c2-7a1b-7c3d-8e4f-0123456789ab")}) {
    EXPECT_TRUE(is_acceptable_request_id(id)) << id;
  }
}

// interface.md 1.9: empty, over 128, or any other character is not.
TEST(RequestId, RejectsEmptyTooLongAndOtherCharacters) {
  EXPECT_FALSE(is_acceptable_request_id(""));
  EXPECT_FALSE(is_acceptable_request_id(std::string(129, 'x')));
  EXPECT_FALSE(is_acceptable_request_id(std::string(1000, 'x')));
  for (char c : std::string(" \t/\\+=,;\"'<>()[]{}!@#$%^&*?|~`\r\n")) {
    std::string id = "abc" + std::string(1, c) + "def";
    EXPECT_FALSE(is_acceptable_request_id(id)) << "char " << static_cast<int>(c);
  }
  EXPECT_FALSE(is_acceptable_request_id(std::string("ab\0cd", 5)));
  EXPECT_FALSE(is_acceptable_request_id("caf\xC3\xA9"));
  EXPECT_FALSE(is_acceptable_request_id(" abc"));
  EXPECT_FALSE(is_acceptable_request_id("abc "));
}

// interface.md 1.9: exactly one acceptable client value is echoed.
TEST(RequestId, OneAcceptableClientValueIsKept) {
  EXPECT_EQ(choose_request_id({"client-id-1"}), "client-id-1");
  std::string longest(128, 'q');
  EXPECT_EQ(choose_request_id({longest}), longest);
}

// interface.md 1.9: none, two, or an unacceptable one: a generated id
// (itself acceptable, so that it can be echoed by proxies and clients).
TEST(RequestId, OtherwiseAFreshIdIsGenerated) {
  std::vector<std::vector<std::string_view>> cases = {
      {}, {"a", "b"}, {"same", "same"}, {""}, {"bad value"}, {std::string_view("x/y")}};
  std::string too_long(129, 'x');
  cases.push_back({too_long});
  for (const auto& values : cases) {
    std::string id = choose_request_id(values);
    EXPECT_TRUE(is_acceptable_request_id(id)) << id;
    for (auto v : values) EXPECT_NE(id, v);
  }
  EXPECT_NE(choose_request_id({}), choose_request_id({}));
}

// Generated ids come from a per-thread pool of CSPRNG bytes refilled every
// few hundred ids: across several refills they stay distinct UUIDv7s.
TEST(RequestId, GeneratedIdsStayUniqueAcrossPoolRefills) {
  const std::regex uuid_v7("^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$");
  std::set<std::string> seen;
  for (int i = 0; i < 5000; ++i) {
    std::string id = choose_request_id({});
    ASSERT_TRUE(std::regex_match(id, uuid_v7)) << id;
    ASSERT_TRUE(seen.insert(id).second) << "repeated after " << i << " ids: " << id;
  }
}

}  // namespace
}  // namespace authd
