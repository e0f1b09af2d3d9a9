// CORS (interface.md 5.2: "CORS, when enabled, exposes that header"): exact
// allowed origins, preflights answered on known paths, the Authorization
// and X-Request-Id response headers exposed, nothing for other origins, and
// 405 with Allow (interface.md 1.4) kept for every OPTIONS that is not an
// allowed preflight.
#include <gtest/gtest.h>

#include "harness.hpp"
#include "run_authd.hpp"

namespace authd::test {
namespace {

constexpr const char* kApp = "https://app.example";
constexpr const char* kLocal = "http://localhost:3000";

std::vector<std::string> cors_args() {
  std::vector<std::string> args = fast_hashing();
  args.insert(args.end(), {"--cors-origins", std::string(kApp) + "," + kLocal});
  return args;
}

HttpResponse preflight(unsigned short port, const std::string& path, const std::string& origin,
                       const std::string& method = "POST") {
  return send_request(port, "OPTIONS", path,
                      {{"Origin", origin},
                       {"Access-Control-Request-Method", method},
                       {"Access-Control-Request-Headers", "content-type"}});
}

bool has_cors_header(const HttpResponse& res) {
  for (const auto& [name, value] : res.headers) {
    if (name.rfind("access-control-", 0) == 0) return true;
  }
  return false;
}

// 5.2: a preflight from an allowed origin on a known path: 204 with what
// the browser needs to send the real request.
TEST(Cors, Interface_5_2_PreflightFromAllowedOriginIsAnswered204) {
  AuthdProcess authd(cors_args());
  HttpResponse res = preflight(authd.port(), "/login", kApp);
  EXPECT_EQ(res.status, 204);
  EXPECT_EQ(res.header("access-control-allow-origin"), kApp);
  EXPECT_EQ(res.header("access-control-allow-methods"), "POST");
  EXPECT_EQ(res.header("access-control-allow-headers"),
            "Authorization, Content-Type, X-Request-Id");
  EXPECT_EQ(res.header("access-control-max-age"), "600");
  EXPECT_EQ(res.header("vary"), "Origin");
  EXPECT_EQ(res.header_count("access-control-allow-credentials"), 0u);
  EXPECT_EQ(res.header_count("content-length"), 0u) << "RFC 9110 8.6: none on a 204";
  EXPECT_TRUE(res.body.empty());
  EXPECT_FALSE(res.header("x-request-id").empty());

  HttpResponse me = preflight(authd.port(), "/me", kLocal, "GET");
  EXPECT_EQ(me.status, 204);
  EXPECT_EQ(me.header("access-control-allow-origin"), kLocal);
  EXPECT_EQ(me.header("access-control-allow-methods"), "GET");
}

// 5.2: the login answer to an allowed origin exposes the Authorization
// header that carries the token.
TEST(Cors, Interface_5_2_LoginResponseExposesAuthorizationToAllowedOrigin) {
  AuthdProcess authd(cors_args());
  authd.add_user("ada@example.com", "correct horse battery");
  HttpResponse res =
      post_json(authd.port(), "/login", login_body("ada@example.com", "correct horse battery"),
                {{"Origin", kApp}});
  ASSERT_EQ(res.status, 200);
  EXPECT_EQ(res.header("access-control-allow-origin"), kApp);
  EXPECT_EQ(res.header("access-control-expose-headers"),
            "Authorization, X-Request-Id, WWW-Authenticate, Retry-After, Authd-Second-Factor");
  EXPECT_EQ(res.header("vary"), "Origin");
  EXPECT_EQ(res.header("authorization").rfind("Bearer ", 0), 0u);
  // Errors too, so that a page can read them.
  HttpResponse error = post_json(authd.port(), "/login", "{}", {{"Origin", kApp}});
  EXPECT_EQ(error.status, 400);
  EXPECT_EQ(error.header("access-control-allow-origin"), kApp);
}

// A page must be able to react to a refusal: the 401's WWW-Authenticate
// (interface.md 5.2 with 6 /me), the Retry-After of a 429 or 503, and the
// Authd-Second-Factor of a login that needs a code (12.3) are exposed along
// with the token's header.
TEST(Cors, Interface_5_2_ChallengeAndRetryAfterAreExposed) {
  AuthdProcess authd(cors_args());
  HttpResponse res = send_request(authd.port(), "GET", "/me", {{"Origin", kApp}});
  ASSERT_EQ(res.status, 401);
  EXPECT_FALSE(res.header("www-authenticate").empty());
  std::string exposed = res.header("access-control-expose-headers");
  for (const char* name :
       {"Authorization", "X-Request-Id", "WWW-Authenticate", "Retry-After", "Authd-Second-Factor"})
    EXPECT_NE(exposed.find(name), std::string::npos) << name << " not in: " << exposed;
}

// A configured origin is normalised to the form browsers send (lower-case
// scheme and host, no default port): written any other way it would
// silently never match.
TEST(Cors, Interface_5_2_ConfiguredOriginIsNormalisedToTheBrowsersForm) {
  std::vector<std::string> args = fast_hashing();
  args.insert(args.end(), {"--cors-origins",
                           "HTTPS://App.Example:443,http://LocalHost:80,"
                           "http://localhost:03000"});
  AuthdProcess authd(args);
  for (const char* origin : {"https://app.example", "http://localhost", "http://localhost:3000"}) {
    HttpResponse pre = preflight(authd.port(), "/login", origin);
    EXPECT_EQ(pre.status, 204) << origin;
    EXPECT_EQ(pre.header("access-control-allow-origin"), origin);
  }
  CommandResult r = run_authd({"config", "--cors-origins", "HTTPS://App.Example:443"});
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("cors-origins = ['https://app.example']"), std::string::npos) << r.output;
}

// Other origins get no CORS header at all; their preflight is an ordinary
// OPTIONS request (405 with Allow, interface.md 1.4).
TEST(Cors, OriginNotAllowedGetsNoCorsHeaders) {
  AuthdProcess authd(cors_args());
  for (const char* origin : {"https://evil.example", "https://app.example.evil",
                             "http://app.example", "https://APP.example", "null"}) {
    HttpResponse pre = preflight(authd.port(), "/login", origin);
    EXPECT_EQ(pre.status, 405) << origin;
    EXPECT_EQ(pre.header("allow"), "POST") << origin;
    EXPECT_FALSE(has_cors_header(pre)) << origin;
    HttpResponse res = post_json(authd.port(), "/login", "{}", {{"Origin", origin}});
    EXPECT_EQ(res.status, 400) << origin;
    EXPECT_FALSE(has_cors_header(res)) << origin;
    EXPECT_EQ(res.header("vary"), "Origin") << "caches must still key on Origin";
  }
}

// 1.4: with CORS on, an OPTIONS that is not a preflight (no Origin, or no
// Access-Control-Request-Method) still gets 405 with Allow; an unknown path
// 404 even for a preflight.
TEST(Cors, Interface_1_4_OptionsThatIsNotAPreflightIs405WithAllow) {
  AuthdProcess authd(cors_args());
  HttpResponse plain = send_request(authd.port(), "OPTIONS", "/login");
  EXPECT_EQ(plain.status, 405);
  EXPECT_EQ(plain.header("allow"), "POST");
  HttpResponse origin_only = send_request(authd.port(), "OPTIONS", "/me", {{"Origin", kApp}});
  EXPECT_EQ(origin_only.status, 405);
  EXPECT_EQ(origin_only.header("allow"), "GET");
  EXPECT_EQ(origin_only.header("access-control-allow-origin"), kApp);
  EXPECT_EQ(preflight(authd.port(), "/no-such-path", kApp).status, 404);
}

// CORS is off by default: no CORS header and no Vary, preflights are 405.
TEST(Cors, OffByDefault) {
  AuthdProcess authd(fast_hashing());
  HttpResponse pre = preflight(authd.port(), "/login", kApp);
  EXPECT_EQ(pre.status, 405);
  EXPECT_FALSE(has_cors_header(pre));
  EXPECT_EQ(pre.header_count("vary"), 0u);
  HttpResponse res = post_json(authd.port(), "/login", "{}", {{"Origin", kApp}});
  EXPECT_FALSE(has_cors_header(res));
}

// Exact origins only: a wildcard, a path or a bare host is refused at start.
TEST(Cors, WildcardOrMalformedOriginIsRejectedNamingTheOption) {
  for (const char* value :
       {"*", "https://app.example/", "app.example", "https://*.example", "https://app.example:0",
        "https://app.example:65536", "ftp://app.example"}) {
    CommandResult r = run_authd({"config", "--cors-origins", value});
    EXPECT_NE(r.exit_code, 0) << value;
    EXPECT_NE(r.output.find("--cors-origins"), std::string::npos) << r.output;
  }
}

}  // namespace
}  // namespace authd::test
