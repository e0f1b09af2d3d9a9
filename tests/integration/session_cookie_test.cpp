// interface.md 13.5: browser sessions by cookie (--session-cookie). Login
// sets the cookie, the bearer routes take it when no Authorization header
// is sent, /logout clears it, and a state-changing request authenticated by
// it needs a trusted Origin. Chromium itself is in
// tests/browser/session_cookie.test.mjs.
#include <gtest/gtest.h>

#include "contract_support.hpp"
#include "harness.hpp"

namespace authd::test {
namespace {

const std::string kCookieName = "authd_session";
const std::string kCookieAllowedOrigin = "https://app.example.com";

// The harness's public URL is http://authd.test: not loopback, so Secure.
std::vector<std::string> with_cookie_sessions(std::vector<std::string> more = {}) {
  std::vector<std::string> args = fast_hashing();
  args.insert(args.end(),
              {"--session-cookie", kCookieName, "--cors-origins", kCookieAllowedOrigin});
  args.insert(args.end(), more.begin(), more.end());
  return args;
}

// Logs in; returns the response.
HttpResponse cookie_login(const AuthdProcess& authd) {
  return post_json(authd.port(), "/login", login_body(kEmail, kPassword));
}

Headers session_cookie_of(const std::string& token, Headers more = {}) {
  more.push_back({"Cookie", "theme=dark; " + kCookieName + "=" + token + "; lang=en"});
  return more;
}

TEST(SessionCookie, Interface_13_5_LoginSetsTheCookie) {
  AuthdProcess authd(with_cookie_sessions({"--session-lifetime", "2h"}));
  authd.add_user(kEmail, kPassword);
  HttpResponse login = cookie_login(authd);
  ASSERT_EQ(login.status, 200) << login.body;
  std::string token = token_of(login);
  ASSERT_FALSE(token.empty());
  EXPECT_EQ(login.header_count("set-cookie"), 1u);
  EXPECT_EQ(login.header("set-cookie"),
            kCookieName + "=" + token + "; HttpOnly; Secure; SameSite=Lax; Path=/; Max-Age=7200");
  // A failed login sets nothing.
  HttpResponse failed =
      post_json(authd.port(), "/login", login_body(kEmail, "not the password at all"));
  EXPECT_EQ(failed.status, 401);
  EXPECT_EQ(failed.header_count("set-cookie"), 0u);
}

// 13.5: by default no cookie is set, and one sent is not a credential.
TEST(SessionCookie, Interface_13_5_OffByDefault) {
  AuthdProcess authd(fast_hashing());
  authd.add_user(kEmail, kPassword);
  HttpResponse login = cookie_login(authd);
  ASSERT_EQ(login.status, 200);
  EXPECT_EQ(login.header_count("set-cookie"), 0u);
  EXPECT_EQ(send_request(authd.port(), "GET", "/me", session_cookie_of(token_of(login))).status,
            401);
}

// 13.5: the harness's public URL (http://authd.test) is not loopback: the
// cookie is Secure (the loopback case is in tests/unit/session_cookie_test.cpp
// and, end to end, in the Chromium test).
// 13.5: the bearer routes take the cookie when no Authorization is sent;
// an Authorization header, when sent, is the only credential looked at.
TEST(SessionCookie, Interface_13_5_BearerRoutesAcceptTheCookie) {
  AuthdProcess authd(with_cookie_sessions());
  authd.add_user(kEmail, kPassword);
  std::string token = token_of(cookie_login(authd));
  HttpResponse me = send_request(authd.port(), "GET", "/me", session_cookie_of(token));
  ASSERT_EQ(me.status, 200) << me.body;
  EXPECT_EQ(me.json()["email"], kEmail);
  EXPECT_EQ(send_request(authd.port(), "GET", "/sessions", session_cookie_of(token)).status, 200);

  HttpResponse wrong_header = send_request(
      authd.port(), "GET", "/me", session_cookie_of(token, {{"Authorization", "Bearer authd_x"}}));
  EXPECT_EQ(wrong_header.status, 401);
  EXPECT_EQ(send_request(authd.port(), "GET", "/me", session_cookie_of("authd_unknown")).status,
            401);
  // Two cookies of the name: which one is meant cannot be known.
  HttpResponse twice = send_request(
      authd.port(), "GET", "/me",
      {{"Cookie", kCookieName + "=" + token}, {"Cookie", kCookieName + "=authd_other"}});
  EXPECT_EQ(twice.status, 400);
  EXPECT_EQ(send_request(authd.port(), "GET", "/me", {{"Cookie", kCookieName + "=a b"}}).status,
            400);
}

// 13.5: a state-changing request authenticated by the cookie needs an
// Origin that is the public URL's or an allowed CORS origin: otherwise 403,
// and nothing changes. With the Authorization header no Origin is needed.
TEST(SessionCookie, Interface_13_5_CookieNeedsTrustedOriginToChangeState) {
  AuthdProcess authd(with_cookie_sessions());
  authd.add_user(kEmail, kPassword);
  std::string token = token_of(cookie_login(authd));
  std::string password_body =
      nlohmann::json{{"currentPassword", kPassword}, {"newPassword", kNewPassword}}.dump();
  for (const Headers& origin :
       std::vector<Headers>{{},
                            {{"Origin", "https://evil.example"}},
                            {{"Origin", "http://authd.test.evil.example"}},
                            {{"Origin", "null"}},
                            {{"Origin", "http://authd.test"}, {"Origin", "http://authd.test"}}}) {
    HttpResponse logout =
        send_request(authd.port(), "POST", "/logout", session_cookie_of(token, origin));
    EXPECT_EQ(logout.status, 403) << logout.body;
    EXPECT_EQ(logout.header_count("set-cookie"), 0u);
    EXPECT_EQ(
        send_request(authd.port(), "DELETE", "/sessions", session_cookie_of(token, origin)).status,
        403);
    Headers json = session_cookie_of(token, origin);
    json.push_back({"Content-Type", "application/json"});
    EXPECT_EQ(send_request(authd.port(), "POST", "/password", json, password_body).status, 403);
  }
  // Nothing changed: the session is live, the password is the old one.
  EXPECT_EQ(send_request(authd.port(), "GET", "/me", session_cookie_of(token)).status, 200);
  EXPECT_FALSE(authd.login(kEmail, kPassword).empty());

  // An allowed CORS origin may.
  EXPECT_EQ(send_request(authd.port(), "DELETE", "/sessions",
                         session_cookie_of(token, {{"Origin", kCookieAllowedOrigin}}))
                .status,
            204);
  // The bearer header needs no Origin.
  EXPECT_EQ(
      send_request(authd.port(), "DELETE", "/sessions", {{"Authorization", "Bearer " + token}})
          .status,
      204);
}

// 13.5: /logout clears the cookie; from the public URL's own origin.
TEST(SessionCookie, Interface_13_5_LogoutClearsTheCookie) {
  AuthdProcess authd(with_cookie_sessions());
  authd.add_user(kEmail, kPassword);
  std::string token = token_of(cookie_login(authd));
  HttpResponse logout = send_request(authd.port(), "POST", "/logout",
                                     session_cookie_of(token, {{"Origin", "http://authd.test"}}));
  ASSERT_EQ(logout.status, 200) << logout.body;
  EXPECT_EQ(logout.header("set-cookie"),
            kCookieName + "=; HttpOnly; Secure; SameSite=Lax; Path=/; Max-Age=0");
  EXPECT_EQ(send_request(authd.port(), "GET", "/me", session_cookie_of(token)).status, 401);
  // A dead cookie is cleared too.
  HttpResponse again = send_request(authd.port(), "POST", "/logout",
                                    session_cookie_of(token, {{"Origin", "http://authd.test"}}));
  EXPECT_EQ(again.status, 401);
  EXPECT_EQ(again.header_count("set-cookie"), 1u);
}

// 13.5 with CORS (5.2): an allowed origin's pages may send the cookie and
// read the answer (Access-Control-Allow-Credentials), preflights included.
TEST(SessionCookie, Interface_13_5_AllowedOriginMaySendCredentials) {
  AuthdProcess authd(with_cookie_sessions());
  HttpResponse preflight =
      send_request(authd.port(), "OPTIONS", "/sessions",
                   {{"Origin", kCookieAllowedOrigin}, {"Access-Control-Request-Method", "DELETE"}});
  EXPECT_EQ(preflight.status, 204);
  EXPECT_EQ(preflight.header("access-control-allow-credentials"), "true");
  HttpResponse me = send_request(authd.port(), "GET", "/me", {{"Origin", kCookieAllowedOrigin}});
  EXPECT_EQ(me.header("access-control-allow-origin"), kCookieAllowedOrigin);
  EXPECT_EQ(me.header("access-control-allow-credentials"), "true");
  HttpResponse foreign =
      send_request(authd.port(), "GET", "/me", {{"Origin", "https://evil.example"}});
  EXPECT_EQ(foreign.header_count("access-control-allow-credentials"), 0u);
}

// 13.5: a name that is not a cookie name refuses the start.
TEST(SessionCookie, Interface_13_5_BadCookieNameIsRefused) {
  AuthdProcess authd(fast_hashing());
  for (const char* name : {"a b", "a;b", "a=b", "é"}) {
    std::string output;
    EXPECT_NE(
        authd.cli({"serve", "--session-cookie", name, "--listen", "127.0.0.1:0"}, "", &output), 0)
        << name;
  }
}

}  // namespace
}  // namespace authd::test
