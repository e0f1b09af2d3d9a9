// interface.md 17.4, 17.5, 17.13: the provider's server-rendered pages
// (api/oauth_pages.cpp): the consent page, the error page and the sign-out
// pages (the confirmation, "You are signed out") put every value in
// HTML-escaped, follow the DOM contract that browsers and relying parties'
// tests drive, and carry the sign-in page's strict headers. The consent
// and sign-out confirmation forms' CSP allows the redirect target's origin
// (Chromium applies form-action to the redirects of a form submission) and
// nothing that could break out of the header. What the pages do in a browser is tested
// by tests/browser/oidc_signin_page.test.mjs and the lead's flow tests.
#include <gtest/gtest.h>

#include <optional>
#include <regex>
#include <string>

#include "api/oauth_pages.hpp"

namespace authd {
namespace {

std::string header(const ApiResponse& response, std::string_view name) {
  std::string found;
  int count = 0;
  for (const auto& [key, value] : response.headers) {
    if (key == name) {
      found = value;
      ++count;
    }
  }
  EXPECT_LE(count, 1) << name << " given twice";
  return found;
}

std::string form_action(const ApiResponse& response) {
  std::string csp = header(response, "Content-Security-Policy");
  std::smatch match;
  EXPECT_TRUE(std::regex_search(csp, match, std::regex("form-action ([^;]*)(;|$)"))) << csp;
  return match[1];
}

void expect_strict_headers(const ApiResponse& response) {
  EXPECT_EQ(response.content_type.view(), "text/html; charset=utf-8");
  std::string csp = header(response, "Content-Security-Policy");
  for (const char* directive :
       {"default-src 'none'", "script-src 'self'", "style-src 'self'", "connect-src 'self'",
        "img-src 'self'", "frame-ancestors 'none'", "base-uri 'none'"})
    EXPECT_NE(csp.find(directive), std::string::npos) << directive << " missing in " << csp;
  EXPECT_EQ(csp.find("unsafe"), std::string::npos) << csp;
  EXPECT_EQ(header(response, "X-Frame-Options"), "DENY");
  EXPECT_EQ(header(response, "X-Content-Type-Options"), "nosniff");
  const std::string& html = response.body;
  EXPECT_EQ(html.find("<script"), std::string::npos) << "no script on a server-rendered page";
  EXPECT_EQ(html.find("<style"), std::string::npos);
  EXPECT_FALSE(std::regex_search(html, std::regex(R"(\son[a-z]+\s*=)", std::regex::icase)));
  EXPECT_EQ(html.find("{{"), std::string::npos) << "a template tag left unrendered";
}

constexpr const char* kHostile = "<script>alert(\"x\")</script> & 'quoted'";
constexpr const char* kHostileEscaped =
    "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &apos;quoted&apos;";

ConsentPageView view() {
  ConsentPageView v;
  v.request_id = "authdar_abc\"><x";
  v.client_name = kHostile;
  v.scopes = {"openid", "profile", "email", "phone", "offline_access"};
  v.redirect_uri = "https://app.example.com:8443/callback?x=1";
  return v;
}

TEST(OAuthPages, Interface_17_4_ErrorPageEscapesItsMessage) {
  ApiResponse page = oauth_error_page(400, kHostile);
  EXPECT_EQ(page.status, 400);
  expect_strict_headers(page);
  EXPECT_EQ(header(page, "Referrer-Policy"), "no-referrer");
  EXPECT_EQ(form_action(page), "'none'");
  EXPECT_NE(page.body.find(std::string("<p id=\"message\" class=\"status error\" role=\"alert\">") +
                           kHostileEscaped + "</p>"),
            std::string::npos)
      << page.body;
  EXPECT_EQ(page.body.find("<script>alert"), std::string::npos);
}

TEST(OAuthPages, Interface_17_5_ExpiredRequestMessageIsShownAsGiven) {
  const std::string message =
      "This sign-in request has expired. Go back to the application and try again.";
  ApiResponse page = oauth_error_page(400, message, "/oauth2/authorize/resume");
  EXPECT_NE(page.body.find(message), std::string::npos);
  // The style sheet, from the public URL's root whatever its prefix.
  EXPECT_NE(page.body.find("href=\"../../reset.css\""), std::string::npos);
  EXPECT_NE(oauth_error_page(400, message).body.find("href=\"../reset.css\""), std::string::npos);
}

TEST(OAuthPages, Interface_17_5_ConsentPageEscapesEveryValue) {
  ApiResponse page = consent_page(view());
  EXPECT_EQ(page.status, 200);
  expect_strict_headers(page);
  const std::string& html = page.body;
  EXPECT_NE(html.find(std::string("<span id=\"client-name\">") + kHostileEscaped + "</span>"),
            std::string::npos)
      << html;
  EXPECT_NE(
      html.find("<input type=\"hidden\" name=\"request\" value=\"authdar_abc&quot;&gt;&lt;x\">"),
      std::string::npos)
      << html;
  EXPECT_EQ(html.find("<script>alert"), std::string::npos);
  EXPECT_EQ(html.find("\"><x"), std::string::npos);
}

TEST(OAuthPages, Interface_17_5_ConsentPageNamesEachScopeInWords) {
  ConsentPageView v = view();
  v.scopes.push_back("<b>custom</b>");
  const std::string html = consent_page(v).body;
  for (const char* sentence :
       {"Know who you are (your account id)", "See your name and picture",
        "See your e-mail address", "See your phone number", "Stay signed in when you are away"})
    EXPECT_NE(html.find(sentence), std::string::npos) << sentence;
  EXPECT_NE(html.find("&lt;b&gt;custom&lt;/b&gt;"), std::string::npos) << "unknown scope by name";
  std::regex item(R"(<li data-scope="[^"]*">)");
  auto items = std::distance(std::sregex_iterator(html.begin(), html.end(), item), {});
  EXPECT_EQ(items, 6);
  EXPECT_NE(html.find("<ul id=\"scopes\""), std::string::npos);
  // No scope (a plain OAuth 2 request may ask for none): still one line.
  v.scopes.clear();
  const std::string none = consent_page(v).body;
  EXPECT_EQ(std::distance(std::sregex_iterator(none.begin(), none.end(), item), {}), 1);
  EXPECT_NE(none.find("Know that you signed in"), std::string::npos);
}

TEST(OAuthPages, Interface_17_5_ConsentFormPostsDecisionToOauth2Consent) {
  const std::string html = consent_page(view()).body;
  EXPECT_TRUE(std::regex_search(
      html, std::regex(R"(<form id="consent" method="post" action="oauth2/consent">)")));
  EXPECT_TRUE(std::regex_search(
      html, std::regex(R"(<button id="allow" type="submit" name="decision" value="allow">)")));
  EXPECT_TRUE(std::regex_search(
      html, std::regex(R"(<button id="deny" type="submit" name="decision" value="deny")")));
  EXPECT_NE(html.find("href=\"reset.css\""), std::string::npos);
  // Served by the authorization endpoint itself: the same targets, from
  // further down.
  ConsentPageView deeper = view();
  deeper.page_path = "/oauth2/authorize/resume";
  const std::string resumed = consent_page(deeper).body;
  EXPECT_NE(resumed.find("action=\"../../oauth2/consent\""), std::string::npos);
  EXPECT_NE(resumed.find("href=\"../../reset.css\""), std::string::npos);
}

// A form POST under Referrer-Policy: no-referrer carries `Origin: null`,
// which the consent route's same-origin check refuses.
TEST(OAuthPages, Interface_17_5_ConsentPageSendsItsOriginWithTheForm) {
  ApiResponse page = consent_page(view());
  EXPECT_EQ(header(page, "Referrer-Policy"), "same-origin");
  EXPECT_NE(page.body.find("<meta name=\"referrer\" content=\"same-origin\">"), std::string::npos);
}

TEST(OAuthPages, Interface_17_5_ConsentFormActionAllowsTheRedirectTarget) {
  auto action_for = [](std::string uri) {
    ConsentPageView v = view();
    v.redirect_uri = std::move(uri);
    return form_action(consent_page(v));
  };
  EXPECT_EQ(action_for("https://app.example.com:8443/callback?x=1"),
            "'self' https://app.example.com:8443");
  EXPECT_EQ(action_for("https://App.Example.com/cb#"), "'self' https://App.Example.com");
  EXPECT_EQ(action_for("http://127.0.0.1:51004/cb"), "'self' http://127.0.0.1:51004");
  // CSP's host-source cannot spell an IPv6 literal: the scheme alone.
  EXPECT_EQ(action_for("http://[::1]:51004/cb"), "'self' http:");
  // RFC 8252 7.1: a private-use scheme.
  EXPECT_EQ(action_for("com.example.app:/oauth2redirect"), "'self' com.example.app:");
  // Nothing that could end the directive or add a source is written.
  EXPECT_EQ(action_for("https://evil.example; script-src *"), "'self'");
  EXPECT_EQ(action_for("https://user@app.example.com/cb"), "'self'");
  EXPECT_EQ(action_for("https://app.example.com:80x/cb"), "'self'");
  EXPECT_EQ(action_for("ja vascript:x"), "'self'");
  EXPECT_EQ(action_for("JavaScript:alert(1)"), "'self'");
  EXPECT_EQ(action_for("data:text/html,x"), "'self'");
  EXPECT_EQ(action_for(""), "'self'");
}

// ---- interface.md 17.13: the sign-out pages ------------------------------

constexpr const char* kHostileName = "<b>App</b> & \"co\"";
constexpr const char* kHostileNameEscaped = "&lt;b&gt;App&lt;/b&gt; &amp; &quot;co&quot;";

LogoutPageView logout_view() {
  LogoutPageView v;
  v.client_name = kHostileName;
  v.form_token = "1800000000.abc";
  v.fields = {{"id_token_hint", "a.b.c"}, {"state", "\"><script>x</script>"}};
  v.redirect_uri = "https://app.example.com:8443/bye?x=1";
  return v;
}

TEST(OAuthLogoutPages, Interface_17_13_ConfirmationEscapesEveryValue) {
  ApiResponse page = logout_page(logout_view());
  expect_strict_headers(page);
  const std::string& html = page.body;
  EXPECT_NE(html.find(std::string("<span id=\"client-name\">") + kHostileNameEscaped + "</span>"),
            std::string::npos)
      << html;
  EXPECT_NE(
      html.find(
          R"(<input type="hidden" name="state" value="&quot;&gt;&lt;script&gt;x&lt;/script&gt;">)"),
      std::string::npos)
      << html;
  EXPECT_NE(html.find(R"(<input type="hidden" name="token" value="1800000000.abc">)"),
            std::string::npos);
  EXPECT_NE(html.find(R"(<input type="hidden" name="id_token_hint" value="a.b.c">)"),
            std::string::npos);
}

TEST(OAuthLogoutPages, Interface_17_13_ConfirmationFormPostsToConfirm) {
  LogoutPageView v = logout_view();
  v.client_name.clear();
  ApiResponse page = logout_page(v);
  const std::string& html = page.body;
  EXPECT_TRUE(std::regex_search(
      html, std::regex(R"(<form id="logout" method="post" action="../oauth2/logout/confirm">)")));
  EXPECT_TRUE(std::regex_search(html, std::regex(R"(<button id="sign-out" type="submit">)")));
  EXPECT_NE(html.find("href=\"../reset.css\""), std::string::npos);
  EXPECT_EQ(html.find("id=\"client-name\""), std::string::npos) << "no client named";
  // Its POST must carry authd's Origin (a no-referrer form sends "null").
  EXPECT_EQ(header(page, "Referrer-Policy"), "same-origin");
}

TEST(OAuthLogoutPages, Interface_17_13_ConfirmationFormActionAllowsOnlyTheRedirect) {
  auto action_for = [](std::optional<std::string> uri) {
    LogoutPageView v = logout_view();
    v.redirect_uri = std::move(uri);
    std::string csp = header(logout_page(v), "Content-Security-Policy");
    std::smatch match;
    EXPECT_TRUE(std::regex_search(csp, match, std::regex("form-action ([^;]*)(;|$)"))) << csp;
    return std::string(match[1]);
  };
  EXPECT_EQ(action_for("https://app.example.com:8443/bye?x=1"),
            "'self' https://app.example.com:8443");
  EXPECT_EQ(action_for(std::nullopt), "'self'");
  EXPECT_EQ(action_for("https://evil.example; script-src *"), "'self'");
}

TEST(OAuthLogoutPages, Interface_17_13_SignedOutAndErrorPages) {
  ApiResponse out = signed_out_page(kHostileName);
  expect_strict_headers(out);
  EXPECT_EQ(out.status, 200);
  EXPECT_NE(out.body.find(R"(<h1 id="heading">You are signed out</h1>)"), std::string::npos);
  EXPECT_NE(out.body.find(kHostileNameEscaped), std::string::npos);
  EXPECT_EQ(signed_out_page("").body.find("id=\"client-name\""), std::string::npos);
  ApiResponse error = logout_error_page(403, "<nope>", "/oauth2/logout/confirm");
  expect_strict_headers(error);
  EXPECT_EQ(error.status, 403);
  EXPECT_NE(error.body.find(R"(<h1 id="heading">Sign-out problem</h1>)"), std::string::npos);
  EXPECT_NE(error.body.find("&lt;nope&gt;"), std::string::npos);
  EXPECT_NE(error.body.find("href=\"../../reset.css\""), std::string::npos);
  // The sign-in error page keeps its heading.
  EXPECT_NE(oauth_error_page(400, "x").body.find(R"(<h1 id="heading">Sign-in problem</h1>)"),
            std::string::npos);
}

}  // namespace
}  // namespace authd
