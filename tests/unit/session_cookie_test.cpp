// interface.md 13.5: the pure parts of cookie sessions: which public URLs
// drop Secure, the public origin, the cookie's header values, and reading
// the cookie among others. Through the real binary:
// tests/integration/session_cookie_test.cpp.
#include <gtest/gtest.h>

#include "api/credentials.hpp"
#include "config/config.hpp"
#include "config/config_checks.hpp"

namespace authd {
namespace {

Config with_public_url(const std::string& url) {
  Config c;
  c.public_url = url;
  return c;
}

TEST(SessionCookieUnit, Interface_13_5_SecureDroppedOnlyForLoopbackHttp) {
  for (const char* url : {"http://127.0.0.1:8080", "http://127.1.2.3", "http://localhost:8080/auth",
                          "http://LOCALHOST", "http://[::1]:8080"})
    EXPECT_TRUE(with_public_url(url).public_url_is_loopback_http()) << url;
  for (const char* url : {"https://127.0.0.1:8443", "http://auth.example.com", "http://10.0.0.1",
                          "https://localhost", "http://localhost.example.com", "garbage"})
    EXPECT_FALSE(with_public_url(url).public_url_is_loopback_http()) << url;
}

// 13.3: over HTTPS the cookie is Secure even for a loopback http:// URL.
TEST(SessionCookieUnit, Interface_13_3_SecureWheneverTheListenersSpeakHttps) {
  Config plain = with_public_url("http://127.0.0.1:8080");
  EXPECT_FALSE(plain.session_cookie_secure());
  Config https = plain;
  https.tls_cert = "/etc/authd/cert.pem";
  https.tls_key = "/etc/authd/key.pem";
  EXPECT_TRUE(https.session_cookie_secure());
  EXPECT_TRUE(with_public_url("http://auth.example.com").session_cookie_secure());
}

// 13.5: a `__Host-` or `__Secure-` name keeps Secure even for loopback
// http: browsers refuse such a cookie without it (and Chromium keeps a
// Secure one from a loopback http page, which it counts as secure).
TEST(SessionCookieUnit, Interface_13_5_APrefixedNameKeepsSecure) {
  Config c = with_public_url("http://127.0.0.1:8080");
  c.http.session_cookie.name = "authd_session";
  EXPECT_FALSE(c.session_cookie_secure());
  for (const char* name : {"__Host-authd_session", "__Secure-authd_session"}) {
    c.http.session_cookie.name = name;
    EXPECT_TRUE(c.session_cookie_secure()) << name;
  }
}

TEST(SessionCookieUnit, Interface_13_5_PublicOriginIsAsBrowsersSendIt) {
  EXPECT_EQ(with_public_url("https://Auth.Example.com/auth").public_origin(),
            "https://auth.example.com");
  EXPECT_EQ(with_public_url("https://auth.example.com:443").public_origin(),
            "https://auth.example.com");
  EXPECT_EQ(with_public_url("http://127.0.0.1:8080").public_origin(), "http://127.0.0.1:8080");
  EXPECT_EQ(with_public_url("ftp://x").public_origin(), std::nullopt);
  EXPECT_EQ(with_public_url("https://x:99999").public_origin(), std::nullopt);
}

bool refuses_public_url(const Config& c) {
  for (const ConfigFinding& finding : check_config(c))
    if (finding.fields.value("option", "") == "--public-url") return true;
  return false;
}

TEST(SessionCookieUnit, Interface_13_5_CookieNeedsAReadablePublicUrl) {
  Config c = with_public_url("not a url");
  EXPECT_FALSE(refuses_public_url(c));
  c.http.session_cookie.name = "sid";
  EXPECT_TRUE(refuses_public_url(c));
  c.public_url = "https://auth.example.com";
  EXPECT_FALSE(refuses_public_url(c));
}

TEST(SessionCookieUnit, Interface_13_5_CookieHeaders) {
  SessionCookie secure{"sid", true};
  EXPECT_EQ(session_cookie_header(secure, "authd_abc", std::chrono::hours(24)),
            "sid=authd_abc; HttpOnly; Secure; SameSite=Lax; Path=/; Max-Age=86400");
  EXPECT_EQ(clearing_cookie_header(secure),
            "sid=; HttpOnly; Secure; SameSite=Lax; Path=/; Max-Age=0");
  SessionCookie loopback{"sid", false};
  EXPECT_EQ(clearing_cookie_header(loopback), "sid=; HttpOnly; SameSite=Lax; Path=/; Max-Age=0");
}

TEST(SessionCookieUnit, Interface_13_5_ReadsTheNamedCookieAmongOthers) {
  using Views = std::vector<std::string_view>;
  EXPECT_EQ(cookie_values({"a=1; sid=tok; b=2"}, "sid"), Views{"tok"});
  EXPECT_EQ(cookie_values({"sid=\"tok\""}, "sid"), Views{"tok"});
  EXPECT_EQ(cookie_values({"xsid=1; sidx=2; sid"}, "sid"), Views{});
  EXPECT_EQ(cookie_values({"sid=1", "a=b;sid=2"}, "sid"), (Views{"1", "2"}));
}

}  // namespace
}  // namespace authd
