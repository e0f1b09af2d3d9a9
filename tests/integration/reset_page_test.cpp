// interface.md 7.3: GET /reset serves a small HTML page with no external
// assets, a strict Content-Security-Policy (no 'unsafe-inline') and
// Referrer-Policy: no-referrer; its script and style sheet come from their
// own routes. What the page does in a browser is tested by
// tests/browser/reset_page.test.mjs (CTest: browser.reset_page).
#include <regex>
#include <set>
#include <sstream>

#include <gtest/gtest.h>

#include "harness.hpp"

namespace authd::test {
namespace {

std::string media_type(const HttpResponse& res) {
  std::string value = res.header("content-type");
  return value.substr(0, value.find(';'));
}

std::set<std::string> allow_methods(const HttpResponse& res) {
  std::set<std::string> methods;
  std::istringstream in(res.header("allow"));
  std::string item;
  while (std::getline(in, item, ',')) {
    item.erase(0, item.find_first_not_of(' '));
    item.erase(item.find_last_not_of(' ') + 1);
    if (!item.empty()) methods.insert(item);
  }
  return methods;
}

// Every value of an attribute (src, href, ...) in the page.
std::set<std::string> attribute_values(const std::string& html, const std::string& attribute) {
  std::set<std::string> values;
  std::regex pattern("\\s" + attribute + "\\s*=\\s*[\"']?([^\"'\\s>]*)", std::regex::icase);
  for (std::sregex_iterator it(html.begin(), html.end(), pattern), end; it != end; ++it)
    values.insert((*it)[1]);
  return values;
}

// interface.md 7.3: the page is HTML, with a Content-Security-Policy that
// allows no inline script or style and nothing from another origin, and
// Referrer-Policy: no-referrer.
TEST(ResetPage, Interface_7_3_PageIsHtmlWithStrictSecurityHeaders) {
  AuthdProcess authd(fast_hashing());
  HttpResponse res = send_request(authd.port(), "GET", "/reset");
  ASSERT_EQ(res.status, 200);
  EXPECT_EQ(res.header("content-type"), "text/html; charset=utf-8");
  EXPECT_EQ(res.header_count("content-type"), 1u);
  EXPECT_EQ(res.header("cache-control"), "no-store");
  EXPECT_EQ(res.header_count("cache-control"), 1u);
  EXPECT_EQ(res.header("referrer-policy"), "no-referrer");
  EXPECT_EQ(res.header("x-content-type-options"), "nosniff");
  EXPECT_EQ(res.header("x-frame-options"), "DENY");
  EXPECT_FALSE(res.header("x-request-id").empty());

  ASSERT_EQ(res.header_count("content-security-policy"), 1u);
  std::string csp = res.header("content-security-policy");
  for (const char* directive :
       {"default-src 'none'", "script-src 'self'", "style-src 'self'", "connect-src 'self'",
        "frame-ancestors 'none'", "base-uri 'none'", "form-action 'none'"}) {
    EXPECT_NE(csp.find(directive), std::string::npos) << directive << " missing in: " << csp;
  }
  for (const char* loophole : {"'unsafe-inline'", "'unsafe-eval'", "'unsafe-hashes'", "*",
                               "data:", "http:", "https:", "blob:"}) {
    EXPECT_EQ(csp.find(loophole), std::string::npos) << loophole << " in: " << csp;
  }
}

// interface.md 7.3: no external assets. The page loads exactly its own
// script and style sheet, by relative URL (so a --base-path prefix works),
// and has no inline script, inline style or event-handler attribute (the
// CSP would block them anyway).
TEST(ResetPage, Interface_7_3_PageLoadsOnlyItsOwnScriptAndStyle) {
  AuthdProcess authd(fast_hashing());
  HttpResponse res = send_request(authd.port(), "GET", "/reset");
  ASSERT_EQ(res.status, 200);
  const std::string& html = res.body;
  EXPECT_EQ(html.find("http:"), std::string::npos);
  EXPECT_EQ(html.find("https:"), std::string::npos);
  EXPECT_EQ(html.find("//"), std::string::npos) << "no protocol-relative URL";
  EXPECT_EQ(attribute_values(html, "src"), (std::set<std::string>{"reset.js"}));
  EXPECT_EQ(attribute_values(html, "href"), (std::set<std::string>{"reset.css"}));
  EXPECT_TRUE(attribute_values(html, "action").empty());
  EXPECT_TRUE(attribute_values(html, "style").empty()) << "inline style attribute";
  EXPECT_EQ(html.find("<style"), std::string::npos) << "inline style element";
  EXPECT_FALSE(std::regex_search(html, std::regex(R"(\son[a-z]+\s*=)", std::regex::icase)))
      << "inline event handler";
  std::regex script(R"(<script\b([^>]*)>([\s\S]*?)</script>)", std::regex::icase);
  int scripts = 0;
  for (std::sregex_iterator it(html.begin(), html.end(), script), end; it != end; ++it) {
    ++scripts;
    EXPECT_NE((*it)[1].str().find("src="), std::string::npos) << "inline script";
    EXPECT_TRUE((*it)[2].str().empty()) << "inline script";
  }
  EXPECT_EQ(scripts, 1);
}

// interface.md 7.3 (an accessible form): labelled fields for the new
// password and its confirmation, both autocomplete="new-password", and a
// live region for the messages.
TEST(ResetPage, Interface_7_3_FormIsLabelledWithConfirmationAndLiveStatus) {
  AuthdProcess authd(fast_hashing());
  HttpResponse res = send_request(authd.port(), "GET", "/reset");
  ASSERT_EQ(res.status, 200);
  const std::string& html = res.body;
  EXPECT_NE(html.find("<html lang=\"en\">"), std::string::npos);
  for (const char* id : {"password", "confirmation"}) {
    EXPECT_NE(html.find("<label for=\"" + std::string(id) + "\">"), std::string::npos) << id;
    std::regex input("<input id=\"" + std::string(id) +
                     "\"[^>]*type=\"password\"[^>]*autocomplete=\"new-password\"");
    EXPECT_TRUE(std::regex_search(html, input)) << id;
  }
  EXPECT_TRUE(std::regex_search(html, std::regex(R"(role="status"[^>]*aria-live="polite")")));
  EXPECT_TRUE(std::regex_search(html, std::regex(R"(<button[^>]*type="submit")")));
}

// The script and the style sheet: their own routes and content types,
// never sniffed.
TEST(ResetPage, Interface_7_3_ScriptAndStyleSheetHaveTheirContentTypes) {
  AuthdProcess authd(fast_hashing());
  HttpResponse js = send_request(authd.port(), "GET", "/reset.js");
  ASSERT_EQ(js.status, 200);
  EXPECT_EQ(js.header("content-type"), "text/javascript; charset=utf-8");
  EXPECT_EQ(js.header("x-content-type-options"), "nosniff");
  EXPECT_EQ(js.header("cache-control"), "no-store");
  EXPECT_NE(js.body.find("history.replaceState"), std::string::npos);
  HttpResponse css = send_request(authd.port(), "GET", "/reset.css");
  ASSERT_EQ(css.status, 200);
  EXPECT_EQ(css.header("content-type"), "text/css; charset=utf-8");
  EXPECT_EQ(css.header("x-content-type-options"), "nosniff");
  EXPECT_FALSE(css.body.empty());
  // The page's security headers belong to the page only: the API's JSON
  // answers keep application/json.
  HttpResponse health = send_request(authd.port(), "GET", "/healthz");
  EXPECT_EQ(media_type(health), "application/json");
  EXPECT_EQ(health.header("content-security-policy"), "");
}

// interface.md 1.4: another method on the page's paths is 405 with the
// methods of that path in Allow, as a JSON error.
TEST(ResetPage, Interface_1_4_OtherMethodsAre405WithAllow) {
  AuthdProcess authd(fast_hashing());
  for (const char* method : {"PUT", "DELETE", "PATCH"}) {
    HttpResponse res = send_request(authd.port(), method, "/reset");
    EXPECT_EQ(res.status, 405) << method;
    EXPECT_EQ(allow_methods(res), (std::set<std::string>{"GET", "POST"})) << method;
    EXPECT_EQ(media_type(res), "application/json");
    EXPECT_EQ(res.json()["message"], "Method Not Allowed");
  }
  for (const char* path : {"/reset.js", "/reset.css"}) {
    HttpResponse res =
        send_request(authd.port(), "POST", path, {{"Content-Type", "application/json"}}, "{}");
    EXPECT_EQ(res.status, 405) << path;
    EXPECT_EQ(allow_methods(res), (std::set<std::string>{"GET"})) << path;
    EXPECT_EQ(media_type(res), "application/json") << path;
  }
}

}  // namespace
}  // namespace authd::test
