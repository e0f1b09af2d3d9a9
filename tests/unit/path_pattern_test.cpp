// api/path_pattern.hpp: literal routes match only themselves, "{id}"
// matches exactly one non-empty segment, nothing is decoded or normalised.
#include <gtest/gtest.h>

#include "api/path_pattern.hpp"

namespace authd {
namespace {

struct Case {
  const char* pattern;
  const char* path;
  bool matches;
  const char* parameter;
};

TEST(PathPattern, Interface_11_3_OneParameterSegmentAndLiteralSegments) {
  const Case cases[] = {
      {"/login", "/login", true, ""},
      {"/login", "/login/", false, ""},
      {"/login", "/Login", false, ""},
      {"/login", "/logi", false, ""},
      {"/login", "/loginx", false, ""},
      {"/login", "", false, ""},
      {"/sessions", "/sessions", true, ""},
      {"/sessions/{id}", "/sessions/abc", true, "abc"},
      {"/sessions/{id}", "/sessions/0192-ABCD", true, "0192-ABCD"},
      {"/sessions/{id}", "/sessions/%2e%2e", true, "%2e%2e"},
      {"/sessions/{id}", "/sessions", false, ""},
      {"/sessions/{id}", "/sessions/", false, ""},
      {"/sessions/{id}", "/sessions//", false, ""},
      {"/sessions/{id}", "/sessions/a/", false, ""},
      {"/sessions/{id}", "/sessions/a/b", false, ""},
      {"/sessions/{id}", "/session/a", false, ""},
      {"/sessions/{id}", "sessions/a", false, ""},
      {"/users/{id}/sessions", "/users/7/sessions", true, "7"},
      {"/users/{id}/sessions", "/users//sessions", false, ""},
      {"/users/{id}/sessions", "/users/7/session", false, ""},
      {"/{}", "/{}", true, ""},  // too short to be a parameter: a literal
      {"/{}", "/x", false, ""},
  };
  for (const Case& c : cases) {
    std::string_view parameter = "untouched";
    bool matched = match_path(c.pattern, c.path, parameter);
    EXPECT_EQ(matched, c.matches) << c.pattern << " " << c.path;
    if (matched) {
      EXPECT_EQ(parameter, c.parameter) << c.pattern << " " << c.path;
    } else {
      EXPECT_EQ(parameter, "untouched") << c.pattern << " " << c.path;
    }
  }
}

static_assert([] {
  std::string_view id;
  return match_path("/sessions/{id}", "/sessions/x", id) && id == "x";
}());

}  // namespace
}  // namespace authd
