// api/json_body: interface.md 1.7 (a body that is not valid JSON, not valid
// UTF-8, not an object, or has a duplicate member name anywhere: 400; a member
// of the wrong type: 400; unknown members ignored) and 1.3 (the 400 detail is
// short and never echoes the input, which may hold a password).
#include <gtest/gtest.h>

#include <string>

#include "api/json_body.hpp"

namespace authd {
namespace {

std::optional<RequestJson> parse(std::string_view text, std::string& problem) {
  problem.clear();
  return parse_json_object(text, problem);
}

// interface.md 1.7: a plain object parses; unknown members are kept (and ignored by callers).
TEST(JsonBody, ObjectParses) {
  std::string problem;
  auto body = parse(R"({"email":"a@b.c","password":"pw","extra":[1,{"x":null}]})", problem);
  ASSERT_TRUE(body.has_value()) << problem;
  EXPECT_TRUE(problem.empty());
  EXPECT_EQ((*body)["email"], "a@b.c");
  ASSERT_TRUE(parse("{}", problem).has_value());
  ASSERT_TRUE(parse(" \r\n\t{ } \n", problem).has_value());
}

// interface.md 1.7: the same name in sibling objects is not a duplicate.
TEST(JsonBody, SameNameInDifferentObjectsIsNotADuplicate) {
  std::string problem;
  EXPECT_TRUE(
      parse(R"({"a":{"a":1},"b":[{"a":1},{"a":2}],"c":{"a":{"a":3}}})", problem).has_value())
      << problem;
  EXPECT_TRUE(parse(R"({"a":1,"A":2})", problem).has_value())
      << problem;  // names are case-sensitive
}

// interface.md 1.7: a duplicate member name anywhere in the document is 400.
TEST(JsonBody, DuplicateMemberNamesAnywhereAreRejected) {
  for (const char* text : {
           R"({"email":"a@b.c","email":"x@y.z"})",
           R"({"password":"one","email":"a@b.c","password":"two"})",
           R"({"a":{"b":1,"b":2}})",
           R"({"a":{"b":{"c":1,"c":1}}})",
           R"({"a":[{"b":1,"b":2}]})",
           R"({"a":[{"ok":1},{"b":1,"b":2}]})",
           R"({"a":[[{"b":1,"b":2}]]})",
           R"({"a":{"x":1},"b":2,"a":3})",
           R"({"e":1,"\u0065":2})",  // "\u0065" is "e"
           R"({"":1,"":2})",
       }) {
    std::string problem;
    EXPECT_FALSE(parse(text, problem).has_value()) << text;
    EXPECT_EQ(problem, "body: duplicate member name") << text;
  }
}

// interface.md 1.7: not valid JSON, or not valid UTF-8, is 400.
TEST(JsonBody, InvalidJsonAndInvalidUtf8AreRejected) {
  for (std::string text : {
           std::string(""),
           std::string(" "),
           std::string("{"),
           std::string(R"({"a":1,})"),
           std::string(R"({"a":1}x)"),   // trailing garbage
           std::string(R"({"a":1}{})"),  // two documents
           std::string(R"({"a":1} ,)"),
           std::string(R"({'a':1})"),
           std::string(R"({a:1})"),
           std::string(R"({"a":1 /* c */})"),  // no comments
           std::string(R"({"a":"\ud800"})"),   // lone high surrogate
           std::string(R"({"a":"\udc00"})"),   // lone low surrogate
           std::string(R"({"a":"\ud800x"})"),
           std::string(R"({"a":"\x"})"),
           std::string("{\"a\":\"\xC3\"}"),              // truncated 2-byte sequence
           std::string("{\"a\":\"\xFF\"}"),              // never valid in UTF-8
           std::string("{\"a\":\"\xC0\xAF\"}"),          // overlong '/'
           std::string("{\"a\":\"\xED\xA0\x80\"}"),      // UTF-8-encoded surrogate
           std::string("{\"a\":\"\xF4\x90\x80\x80\"}"),  // beyond U+10FFFF
           std::string("{\"\xC3\":1}"),                  // invalid UTF-8 in a name
           std::string("{\"a\":\"tab\tinside\"}"),       // raw control character
           std::string("{\"a\":1}\0", 8),
           std::string("{\"a\":1}\0{\"b\":2}", 15),  // nothing hides behind a NUL byte
           std::string("{\"a\":1}\0 trailing", 17),
       }) {
    std::string problem;
    EXPECT_FALSE(parse(text, problem).has_value()) << text;
    EXPECT_EQ(problem, "body: not valid JSON in UTF-8") << text;
  }
}

// interface.md 1.7: a valid surrogate pair and raw multi-byte UTF-8 are fine.
TEST(JsonBody, ValidUnicodeIsAccepted) {
  std::string problem;
  auto body = parse(R"({"a":"\ud83d\ude00","b":"é€😀"})", problem);
  ASSERT_TRUE(body.has_value()) << problem;
  EXPECT_EQ((*body)["a"].get<std::string>(), "\xF0\x9F\x98\x80");
}

// interface.md 1.7: a top level that is not an object is 400.
TEST(JsonBody, NonObjectTopLevelIsRejected) {
  for (const char* text : {"[]", R"([{"a":1}])", R"("a")", "1", "null", "true"}) {
    std::string problem;
    EXPECT_FALSE(parse(text, problem).has_value()) << text;
    EXPECT_EQ(problem, "body: must be a JSON object") << text;
  }
}

// interface.md 1.7: a missing member, or one of the wrong type (number,
// null, array, object, boolean where a string is wanted), is 400.
TEST(JsonBody, TakeStringRequiresAString) {
  std::string problem;
  auto body =
      parse(R"({"n":1,"z":null,"a":["x"],"o":{"x":"y"},"b":true,"s":"text","e":""})", problem);
  ASSERT_TRUE(body.has_value());
  struct Case {
    const char* name;
    const char* problem;
  };
  for (Case c : {Case{"missing", "missing: required"}, Case{"n", "n: must be a string"},
                 Case{"z", "z: must be a string"}, Case{"a", "a: must be a string"},
                 Case{"o", "o: must be a string"}, Case{"b", "b: must be a string"}}) {
    std::string p;
    EXPECT_FALSE(take_string(*body, c.name, p).has_value()) << c.name;
    EXPECT_EQ(p, c.problem);
  }
  std::string p;
  EXPECT_EQ(take_string(*body, "s", p), "text");
  EXPECT_EQ(take_string(*body, "e", p), "");  // empty is a string; emptiness is the caller's rule
  EXPECT_TRUE(p.empty());
}

// The parsed body's strings, and nlohmann's lexer's unescaped copy
// of each string token (of the same type), are freed through the wiping
// allocator
// (docs/design/threat-model/secrets-and-data.md#secrets-in-memory-and-on-disk).
TEST(JsonBody, ParsedStringsLiveInMemoryWipedWhenFreed) {
  static_assert(std::is_same_v<RequestJson::string_t::allocator_type, WipingAllocator<char>>);
  std::string problem;
  auto body = parse_json_object(R"({"password":")" + std::string(40, 'p') + R"("})", problem);
  ASSERT_TRUE(body.has_value());
  EXPECT_EQ((*body)["password"].get_ref<const WipedString&>(), std::string(40, 'p').c_str());
}

// The first problem wins: a later one does not overwrite it.
TEST(JsonBody, TakeStringKeepsTheFirstProblem) {
  RequestJson body = {{"email", 1}, {"password", nullptr}};
  std::string problem;
  EXPECT_FALSE(take_string(body, "email", problem).has_value());
  EXPECT_FALSE(take_string(body, "password", problem).has_value());
  EXPECT_EQ(problem, "email: must be a string");
}

// Taking moves the value out, so no second copy of a secret stays in the tree.
TEST(JsonBody, TakeStringMovesTheValueOut) {
  RequestJson body = {{"password", std::string(64, 's')}};
  std::string problem;
  auto taken = take_string(body, "password", problem);
  ASSERT_TRUE(taken.has_value());
  EXPECT_EQ(*taken, std::string(64, 's'));
  EXPECT_EQ(body["password"].get_ref<const WipedString&>().find(std::string(64, 's').c_str()),
            WipedString::npos);
}

// interface.md 1.3: the detail never contains the input (a password, say).
TEST(JsonBody, ProblemNeverEchoesTheInput) {
  const std::string secret = "Hunter2-SecretPassword";
  for (std::string text : {
           R"({"email":"a@b.c","password":")" + secret + R"(","password":"x"})",
           R"({"password":")" + secret + R"(")",
           R"({"password":")" + secret + R"("} trailing )" + secret,
           R"([")" + secret + R"("])",
           "{\"password\":\"" + secret + "\xFF\"}",
           R"({"password":")" + secret + R"(\ud800"})",
           R"({")" + secret + R"(":1,")" + secret + R"(":2})",
           secret,
       }) {
    std::string problem;
    EXPECT_FALSE(parse(text, problem).has_value()) << text;
    EXPECT_FALSE(problem.empty());
    EXPECT_EQ(problem.find("Hunter2"), std::string::npos) << problem;
    EXPECT_LT(problem.size(), 64u) << problem;
  }
  RequestJson body = {{"password", 12345678}};
  std::string problem;
  take_string(body, "password", problem);
  EXPECT_EQ(problem.find("12345678"), std::string::npos) << problem;
}

}  // namespace
}  // namespace authd
