// The walkthrough of docs/guide/getting-started.md, as a test: create a
// user, log in, read the token from the Authorization header, GET /me, log
// out, see it refused.
#include <gtest/gtest.h>

#include "harness.hpp"

namespace authd::test {
namespace {

TEST(Walkthrough, LoginMeLogoutRefused) {
  AuthdProcess authd;
  authd.add_user("alice@example.com", "correct horse battery staple");
  std::string token = authd.login("alice@example.com", "correct horse battery staple");
  ASSERT_FALSE(token.empty()) << authd.log_text();

  HttpResponse me = get_with_token(authd.port(), "/me", token);
  EXPECT_EQ(me.status, 200);
  EXPECT_EQ(me.json()["email"], "alice@example.com");

  EXPECT_EQ(post_with_token(authd.port(), "/logout", token).status, 200);
  EXPECT_EQ(get_with_token(authd.port(), "/me", token).status, 401);
}

}  // namespace
}  // namespace authd::test
