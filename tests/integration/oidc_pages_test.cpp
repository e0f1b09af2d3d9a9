// interface.md 17.2, 17.5: the OpenID provider's sign-in page, GET /signin
// and /signin.js, exists only with --oidc on (404 otherwise, and never on
// the management listener); it is HTML under a strict CSP with no inline
// script, loads only its own script (after common.js, which every page
// shares and which is served without --oidc too) and the reset page's
// style sheet by relative URL, has the DOM that browsers and relying parties' tests drive,
// and links to sign-up only when sign-up is open. SQLite, or PostgreSQL
// with AUTHD_TEST_POSTGRES (scripts/with-postgres.sh). What the page does
// in a browser: tests/browser/oidc_signin_page.test.mjs. The consent and
// error pages are rendered in process: tests/unit/oauth_pages_test.cpp.
#include <regex>
#include <set>

#include <gtest/gtest.h>

#include "harness.hpp"

namespace authd::test {
namespace {

std::vector<std::string> pages_oidc_args(std::vector<std::string> more = {}) {
  std::vector<std::string> args = fast_hashing();
  for (const char* arg : {"--oidc", "on", "--public-url", "https://authd.test"})
    args.emplace_back(arg);
  args.insert(args.end(), more.begin(), more.end());
  return args;
}

std::set<std::string> attribute_values(const std::string& html, const std::string& attribute) {
  std::set<std::string> values;
  std::regex pattern("\\s" + attribute + "\\s*=\\s*\"([^\"]*)\"", std::regex::icase);
  for (std::sregex_iterator it(html.begin(), html.end(), pattern), end; it != end; ++it)
    values.insert((*it)[1]);
  return values;
}

TEST(OidcPages, Interface_17_2_SignInPageIsServedOnlyWithOidcOn) {
  AuthdProcess off(fast_hashing());
  for (const char* path : {"/signin", "/signin?request=x", "/signin.js"})
    EXPECT_EQ(send_request(off.port(), "GET", path).status, 404) << path;
  AuthdProcess on(pages_oidc_args());
  for (const char* path :
       {"/signin", "/signin?request=x", "/signin.js", "/common.js", "/reset.css"})
    EXPECT_EQ(send_request(on.port(), "GET", path).status, 200) << path;
  // The public listener's pages only (interface.md 10.1).
  ASSERT_NE(on.admin_port(), 0);
  EXPECT_EQ(send_request(on.admin_port(), "GET", "/signin").status, 404);
  HttpResponse post =
      send_request(on.port(), "POST", "/signin", {{"Content-Type", "application/json"}}, "{}");
  EXPECT_EQ(post.status, 405);
  EXPECT_EQ(post.header("allow"), "GET");
}

TEST(OidcPages, Interface_17_5_SignInPageHasStrictHeaders) {
  AuthdProcess authd(pages_oidc_args());
  HttpResponse res = send_request(authd.port(), "GET", "/signin?request=authdar_x");
  ASSERT_EQ(res.status, 200);
  EXPECT_EQ(res.header("content-type"), "text/html; charset=utf-8");
  EXPECT_EQ(res.header("cache-control"), "no-store");
  EXPECT_EQ(res.header_count("cache-control"), 1u);
  EXPECT_EQ(res.header("x-frame-options"), "DENY");
  EXPECT_EQ(res.header("referrer-policy"), "no-referrer");
  EXPECT_EQ(res.header("x-content-type-options"), "nosniff");
  ASSERT_EQ(res.header_count("content-security-policy"), 1u);
  std::string csp = res.header("content-security-policy");
  for (const char* directive :
       {"default-src 'none'", "script-src 'self'", "style-src 'self'", "connect-src 'self'",
        "img-src 'self'", "form-action 'self'", "frame-ancestors 'none'", "base-uri 'none'"})
    EXPECT_NE(csp.find(directive), std::string::npos) << directive << " missing in: " << csp;
  for (const char* loophole :
       {"'unsafe-inline'", "'unsafe-eval'", "*", "data:", "http:", "https:", "blob:"})
    EXPECT_EQ(csp.find(loophole), std::string::npos) << loophole << " in: " << csp;

  HttpResponse js = send_request(authd.port(), "GET", "/signin.js");
  ASSERT_EQ(js.status, 200);
  EXPECT_EQ(js.header("content-type"), "text/javascript; charset=utf-8");
  EXPECT_EQ(js.header("x-content-type-options"), "nosniff");
  EXPECT_NE(js.body.find("oauth2/authorize/resume?request="), std::string::npos);
  EXPECT_EQ(js.body.find("innerHTML"), std::string::npos);

  // What the page shares with the other pages, loaded before signin.js.
  HttpResponse common = send_request(authd.port(), "GET", "/common.js");
  ASSERT_EQ(common.status, 200);
  EXPECT_EQ(common.header("content-type"), "text/javascript; charset=utf-8");
  EXPECT_EQ(common.header("x-content-type-options"), "nosniff");
  EXPECT_NE(common.body.find("window.AuthdPage"), std::string::npos);
  EXPECT_EQ(common.body.find("innerHTML"), std::string::npos);
}

TEST(OidcPages, Interface_17_5_SignInPageLoadsOnlyItsOwnScriptAndStyle) {
  AuthdProcess authd(pages_oidc_args());
  const std::string html = send_request(authd.port(), "GET", "/signin?request=x").body;
  EXPECT_EQ(html.find("http:"), std::string::npos);
  EXPECT_EQ(html.find("https:"), std::string::npos);
  EXPECT_EQ(html.find("//"), std::string::npos) << "no protocol-relative URL";
  EXPECT_EQ(attribute_values(html, "src"), (std::set<std::string>{"common.js", "signin.js"}));
  EXPECT_EQ(attribute_values(html, "href"), (std::set<std::string>{"reset.css", "#forgot-form"}));
  EXPECT_TRUE(attribute_values(html, "action").empty()) << "the script posts, not the forms";
  EXPECT_EQ(html.find("<style"), std::string::npos);
  EXPECT_TRUE(attribute_values(html, "style").empty());
  EXPECT_FALSE(std::regex_search(html, std::regex(R"(\son[a-z]+\s*=)", std::regex::icase)));
  std::regex script(R"(<script\b([^>]*)>([\s\S]*?)</script>)", std::regex::icase);
  int scripts = 0;
  for (std::sregex_iterator it(html.begin(), html.end(), script), end; it != end; ++it) {
    ++scripts;
    EXPECT_TRUE((*it)[2].str().empty()) << "inline script";
  }
  EXPECT_EQ(scripts, 2);
  EXPECT_EQ(html.find("{{"), std::string::npos) << "a template tag left unrendered";
}

// The ids of the page's contract (interface.md 17.5), which browser tests
// and relying parties' tests drive.
TEST(OidcPages, Interface_17_5_SignInPageHasTheAgreedElements) {
  AuthdProcess authd(pages_oidc_args());
  const std::string html = send_request(authd.port(), "GET", "/signin?request=x").body;
  for (const char* element :
       {R"(<form id="signin")", R"(<input id="email"[^>]*type="email")",
        R"(<input id="password"[^>]*type="password"[^>]*autocomplete="current-password")",
        R"(<button id="signin-submit" type="submit")", R"(<form id="second-factor")",
        R"(<input id="code")", R"(<button id="code-submit" type="submit")",
        R"(<button id="passkey")", R"(<a id="forgot")", R"(<p id="status"[^>]*role="status")",
        R"(<label for="email">)", R"(<label for="password">)"})
    EXPECT_TRUE(std::regex_search(html, std::regex(element))) << element;
  EXPECT_EQ(html.find("id=\"signup\""), std::string::npos) << "sign-up is closed";
}

// interface.md 17.5: the sign-up link when sign-up is open; the page that
// signs up is the one of sign-in by mail (19.6, "#signup"), so the link
// needs both.
TEST(OidcPages, Interface_17_5_SignUpLinkOnlyWhenSignUpIsOpen) {
  AuthdProcess open(pages_oidc_args({"--signup", "open", "--email-signin", "on"}));
  const std::string html = send_request(open.port(), "GET", "/signin?request=x").body;
  EXPECT_TRUE(std::regex_search(html, std::regex(R"(<a id="signup" href="signin/email#signup">)")))
      << html;
  EXPECT_EQ(send_request(open.port(), "GET", "/signin/email").status, 200);
  AuthdProcess no_page(pages_oidc_args({"--signup", "open"}));
  EXPECT_EQ(send_request(no_page.port(), "GET", "/signin?request=x").body.find("id=\"signup\""),
            std::string::npos);
}

}  // namespace
}  // namespace authd::test
