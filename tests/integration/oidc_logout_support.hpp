// What the tests of RP-initiated logout share (interface.md 17.13):
// oidc_logout_test.cpp and oidc_logout_refusals_test.cpp. Named rp_* where
// a plain name (logout, confirm) could meet another test's in a unity batch.
#pragma once

#include <regex>

#include "oidc_support.hpp"
#include "passkey_support.hpp"

namespace authd::test {

inline const std::string kPostLogout = "https://app.example.com/signed-out";

// oidc_support.hpp's arguments, named in full: another test's own
// oidc_args may share this file's unity batch.
inline std::vector<std::string> logout_args() { return ::authd::test::oidc_args(); }

inline nlohmann::json logout_client(const AuthdProcess& authd, const nlohmann::json& more = {}) {
  nlohmann::json overrides = {{"postLogoutRedirectUris", {kPostLogout}}};
  if (more.is_object()) overrides.update(more);
  return register_client(authd, overrides);
}

// An ID token of `client` for the browser's session `cookie`.
inline std::string id_token_for(const AuthdProcess& authd, const nlohmann::json& client,
                                const std::string& cookie) {
  Pkce pkce;
  std::string code = code_for(authd, client, cookie, pkce, "openid");
  HttpResponse tokens = exchange_code(authd, client, code, pkce);
  EXPECT_EQ(tokens.status, 200) << tokens.body;
  return tokens.status == 200 ? tokens.json().value("id_token", "") : "";
}

inline HttpResponse rp_logout(const AuthdProcess& authd,
                              const std::vector<std::pair<std::string, std::string>>& parameters,
                              const std::string& cookie = "") {
  return browser_get(authd, "/oauth2/logout?" + form_encoded(parameters), cookie);
}

// POST /oauth2/logout/confirm as the page's form posts it.
inline HttpResponse rp_confirm(const AuthdProcess& authd,
                               const std::vector<std::pair<std::string, std::string>>& fields,
                               const std::string& cookie, const std::string& origin = kIssuer) {
  Headers headers = {{"Content-Type", "application/x-www-form-urlencoded"}};
  if (!cookie.empty()) headers.emplace_back("Cookie", "authd_session=" + cookie);
  if (!origin.empty()) headers.emplace_back("Origin", origin);
  return send_request(authd.port(), "POST", "/oauth2/logout/confirm", headers,
                      form_encoded(fields));
}

// The hidden fields of the confirmation page's form, in order.
inline std::vector<std::pair<std::string, std::string>> form_fields(const std::string& html) {
  std::vector<std::pair<std::string, std::string>> fields;
  std::regex hidden(R"re(<input type="hidden" name="([^"]+)" value="([^"]*)">)re");
  for (std::sregex_iterator it(html.begin(), html.end(), hidden), end; it != end; ++it)
    fields.emplace_back((*it)[1], (*it)[2]);
  return fields;
}

// The same user signing in again in the browser: a new session.
inline std::string signed_in_again(const AuthdProcess& authd) {
  return authd.login(kEmail, kPassword);
}

inline bool is_live(const AuthdProcess& authd, const std::string& cookie) {
  return get_with_token(authd.port(), "/me", cookie).status == 200;
}

inline void expect_confirmation_page(const HttpResponse& res, const std::string& context) {
  EXPECT_EQ(res.status, 200) << context << ": " << res.body;
  EXPECT_EQ(res.header("Location"), "") << context;
  EXPECT_NE(res.body.find(R"(<form id="logout" method="post" action="../oauth2/logout/confirm">)"),
            std::string::npos)
      << context << ": " << res.body;
}

inline void expect_cookie_cleared(const HttpResponse& res, const std::string& context) {
  std::string cookie = res.header("Set-Cookie");
  EXPECT_EQ(cookie.rfind("authd_session=;", 0), 0u) << context << ": " << cookie;
  EXPECT_NE(cookie.find("Max-Age=0"), std::string::npos) << context << ": " << cookie;
}

inline std::vector<std::pair<std::string, std::string>> full_request(const std::string& hint) {
  return {{"id_token_hint", hint}, {"post_logout_redirect_uri", kPostLogout}, {"state", "s t&1"}};
}

inline std::vector<std::pair<std::string, std::string>> plus(
    std::vector<std::pair<std::string, std::string>> parameters,
    const std::pair<std::string, std::string>& more) {
  parameters.push_back(more);
  return parameters;
}

}  // namespace authd::test
