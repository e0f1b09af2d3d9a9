// api/bearer: interface.md 6 /logout 1-2 (RFC 6750 section 2.1).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "api/bearer.hpp"

namespace authd {
namespace {

using Kind = BearerCredentials::Kind;

BearerCredentials parse_one(std::string_view value) {
  std::vector<std::string_view> values{value};
  return parse_bearer(values);
}

const char* name(Kind kind) {
  switch (kind) {
    case Kind::token:
      return "token";
    case Kind::missing:
      return "missing";
    case Kind::malformed:
      return "malformed";
  }
  return "?";
}

// interface.md 6 /logout 1: no Authorization header is "missing" (401).
TEST(Bearer, NoHeaderIsMissing) { EXPECT_EQ(parse_bearer({}).kind, Kind::missing); }

// interface.md 6 /logout 1: another scheme is "missing" (401).
TEST(Bearer, OtherSchemeIsMissing) {
  for (const char* value : {"Basic YWxhZGRpbjpvcGVuc2VzYW1l", "Digest x", "Token abc", "Bearerx",
                            "Bearerx abc", "Bear x", "Bearer-x y", "x"}) {
    auto parsed = parse_one(value);
    EXPECT_EQ(parsed.kind, Kind::missing) << "[" << value << "] " << name(parsed.kind);
    EXPECT_TRUE(parsed.token.empty()) << value;
  }
}

// interface.md 6 /logout 2: scheme Bearer (case-insensitive), one or more
// spaces, one b64token: a token.
TEST(Bearer, WellFormedCredentialsAreAToken) {
  struct Case {
    const char* value;
    const char* token;
  };
  for (Case c :
       {Case{"Bearer x", "x"}, Case{"bearer x", "x"}, Case{"BEARER x", "x"}, Case{"bEaReR x", "x"},
        Case{"Bearer   x", "x"}, Case{"Bearer x=", "x="}, Case{"Bearer x==", "x=="},
        Case{"Bearer a-._~+/b", "a-._~+/b"}, Case{"Bearer -._~+/", "-._~+/"},
        Case{"Bearer authd_AbC09-_xyz", "authd_AbC09-_xyz"}}) {
    auto parsed = parse_one(c.value);
    EXPECT_EQ(parsed.kind, Kind::token) << "[" << c.value << "] " << name(parsed.kind);
    EXPECT_EQ(parsed.token, c.token) << c.value;
  }
}

// interface.md 6 /logout 2: Bearer with missing or malformed credentials
// (a tab, nothing after the scheme, more than one value, bad characters).
TEST(Bearer, MalformedCredentialsAreMalformed) {
  for (const char* value : {"Bearer", "bearer", "Bearer ", "Bearer  ", "Bearer\tx", "Bearer \tx",
                            "Bearer x y", "Bearer =x", "Bearer =", "Bearer x=y", "Bearer x==y",
                            "Bearer x,y", "Bearer x\t", "Bearer \"x\"", "Bearer x;", "Bearer x!",
                            "Bearer x@y", "Bearer \xC3\xA9", "Bearer x\r\n"}) {
    auto parsed = parse_one(value);
    EXPECT_EQ(parsed.kind, Kind::malformed) << "[" << value << "] " << name(parsed.kind);
    EXPECT_TRUE(parsed.token.empty()) << value;
  }
}

// interface.md 6 /logout 2: more than one Authorization header is malformed,
// even when each would be valid alone or is of another scheme.
TEST(Bearer, SeveralHeadersAreMalformed) {
  EXPECT_EQ(parse_bearer({"Bearer x", "Bearer x"}).kind, Kind::malformed);
  EXPECT_EQ(parse_bearer({"Bearer x", "Bearer y"}).kind, Kind::malformed);
  EXPECT_EQ(parse_bearer({"Basic abc", "Bearer y"}).kind, Kind::malformed);
  EXPECT_EQ(parse_bearer({"Basic abc", "Basic def"}).kind, Kind::malformed);
}

}  // namespace
}  // namespace authd
