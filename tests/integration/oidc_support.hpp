// What the tests of the OpenID provider share (interface.md 17): an authd
// with --oidc on, clients registered through the admin API, a browser's
// session cookie, the authorization request and its redirect, the token
// endpoint.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "admin_support.hpp"
#include "contract_support.hpp"
#include "crypto/random.hpp"
#include "harness.hpp"

namespace authd::test {

// The issuer of these tests: a loopback http:// URL (17.2), so that the
// cookie is `authd_session` without Secure.
inline const std::string kIssuer = "http://127.0.0.1";
inline const std::string kRedirect = "https://app.example.com/callback";

inline std::vector<std::string> oidc_args(std::vector<std::string> more = {}) {
  std::vector<std::string> args = fast_hashing();
  args.insert(args.end(), {"--oidc", "on", "--public-url", kIssuer});
  args.insert(args.end(), more.begin(), more.end());
  return args;
}

// A client registered with `overrides` over a first-party confidential
// client of kRedirect: the 201's body (clientId, clientSecret).
inline nlohmann::json register_client(const AuthdProcess& authd,
                                      const nlohmann::json& overrides = nlohmann::json::object()) {
  static std::map<int, std::string> keys;  // one admin key per authd process
  std::string& key = keys[authd.pid()];
  if (key.empty()) key = admin::create_key(authd, "oidc-tests");
  nlohmann::json body = {{"name", "Example App"},
                         {"type", "confidential"},
                         {"redirectUris", {kRedirect}},
                         {"firstParty", true}};
  body.update(overrides);
  HttpResponse res = admin::call(authd, key, "POST", "/admin/clients", body);
  EXPECT_EQ(res.status, 201) << res.body;
  return res.status == 201 ? res.json() : nlohmann::json::object();
}

// A PKCE pair (RFC 7636): a verifier and its S256 challenge.
struct Pkce {
  std::string verifier = new_secret_token("v");  // 44 unreserved characters
  std::string challenge() const {
    Sha256Digest digest = sha256(verifier);
    return base64url(digest.data(), digest.size());
  }
};

inline std::string form_encoded(const std::vector<std::pair<std::string, std::string>>& pairs) {
  std::string out;
  for (const auto& [name, value] : pairs) {
    if (!out.empty()) out += '&';
    for (const std::string* part : {&name, &value}) {
      for (unsigned char c : *part) {
        if (std::isalnum(c) || c == '-' || c == '.' || c == '_' || c == '~') {
          out += static_cast<char>(c);
        } else {
          char escaped[4];
          std::snprintf(escaped, sizeof escaped, "%%%02X", c);
          out += escaped;
        }
      }
      if (part == &name) out += '=';
    }
  }
  return out;
}

// The usual parameters of a code request of `client_id` with `pkce`.
inline std::vector<std::pair<std::string, std::string>> code_request(
    const std::string& client_id, const Pkce& pkce, const std::string& scope = "openid email") {
  return {{"response_type", "code"},
          {"client_id", client_id},
          {"redirect_uri", kRedirect},
          {"scope", scope},
          {"state", "st-123"},
          {"nonce", "n-456"},
          {"code_challenge", pkce.challenge()},
          {"code_challenge_method", "S256"}};
}

// GET /oauth2/authorize with the browser's cookie (none when empty).
inline HttpResponse authorize(const AuthdProcess& authd,
                              const std::vector<std::pair<std::string, std::string>>& parameters,
                              const std::string& cookie = "") {
  Headers headers;
  if (!cookie.empty()) headers.emplace_back("Cookie", "authd_session=" + cookie);
  return send_request(authd.port(), "GET", "/oauth2/authorize?" + form_encoded(parameters),
                      headers);
}

inline HttpResponse browser_get(const AuthdProcess& authd, const std::string& target,
                                const std::string& cookie = "") {
  Headers headers;
  if (!cookie.empty()) headers.emplace_back("Cookie", "authd_session=" + cookie);
  return send_request(authd.port(), "GET", target, headers);
}

// The query parameters of a Location, decoded.
inline std::map<std::string, std::string> location_parameters(const HttpResponse& res) {
  std::string location = res.header("Location");
  std::map<std::string, std::string> out;
  std::size_t question = location.find('?');
  if (question == std::string::npos) return out;
  std::string query = location.substr(question + 1);
  std::size_t start = 0;
  while (start <= query.size()) {
    std::size_t end = query.find('&', start);
    if (end == std::string::npos) end = query.size();
    std::string pair = query.substr(start, end - start);
    std::size_t equals = pair.find('=');
    auto decode = [](const std::string& text) {
      std::string decoded;
      for (std::size_t i = 0; i < text.size(); ++i) {
        if (text[i] == '%' && i + 2 < text.size()) {
          decoded += static_cast<char>(std::stoi(text.substr(i + 1, 2), nullptr, 16));
          i += 2;
        } else {
          decoded += text[i] == '+' ? ' ' : text[i];
        }
      }
      return decoded;
    };
    if (!pair.empty()) out[decode(pair.substr(0, equals))] = decode(pair.substr(equals + 1));
    start = end + 1;
  }
  return out;
}

// Where a redirect goes, without its query.
inline std::string location_base(const HttpResponse& res) {
  std::string location = res.header("Location");
  return location.substr(0, location.find('?'));
}

// POST /oauth2/token with `parameters`, the client authenticated by HTTP
// Basic when `secret` is given.
inline HttpResponse token_request(
    const AuthdProcess& authd, const std::vector<std::pair<std::string, std::string>>& parameters,
    const std::string& client_id = "", const std::string& secret = "") {
  Headers headers = {{"Content-Type", "application/x-www-form-urlencoded"}};
  if (!secret.empty()) {
    std::string pair = client_id + ":" + secret;
    char encoded[512];
    sodium_bin2base64(encoded, sizeof encoded, reinterpret_cast<const unsigned char*>(pair.data()),
                      pair.size(), sodium_base64_VARIANT_ORIGINAL);
    headers.emplace_back("Authorization", std::string("Basic ") + encoded);
  }
  return send_request(authd.port(), "POST", "/oauth2/token", headers, form_encoded(parameters));
}

inline HttpResponse exchange_code(const AuthdProcess& authd, const nlohmann::json& client,
                                  const std::string& code, const Pkce& pkce,
                                  const std::string& redirect_uri = kRedirect) {
  return token_request(authd,
                       {{"grant_type", "authorization_code"},
                        {"code", code},
                        {"redirect_uri", redirect_uri},
                        {"code_verifier", pkce.verifier}},
                       client["clientId"], client.value("clientSecret", ""));
}

// The payload of a compact JWS, not verified (the interoperability tests
// verify signatures with an independent library).
inline nlohmann::json jwt_payload(const std::string& jwt) {
  std::size_t first = jwt.find('.');
  std::size_t second = jwt.find('.', first + 1);
  std::optional<std::string> bytes = from_base64url(jwt.substr(first + 1, second - first - 1));
  return bytes ? nlohmann::json::parse(*bytes) : nlohmann::json();
}

inline nlohmann::json jwt_header(const std::string& jwt) {
  std::optional<std::string> bytes = from_base64url(jwt.substr(0, jwt.find('.')));
  return bytes ? nlohmann::json::parse(*bytes) : nlohmann::json();
}

// A whole code flow for a signed-in browser: the code's redirect.
inline std::string code_for(const AuthdProcess& authd, const nlohmann::json& client,
                            const std::string& cookie, const Pkce& pkce,
                            const std::string& scope = "openid email") {
  HttpResponse res = authorize(authd, code_request(client["clientId"], pkce, scope), cookie);
  EXPECT_EQ(res.status, 302) << res.body;
  return location_parameters(res)["code"];
}

// A browser signed in: the session cookie's value.
inline std::string signed_in(const AuthdProcess& authd) {
  authd.add_user(kEmail, kPassword);
  return authd.login(kEmail, kPassword);
}

// authd's own page: HTML, never a redirect.
inline void expect_own_page(const HttpResponse& res, const std::string& context) {
  EXPECT_EQ(res.status, 400) << context << ": " << res.body;
  EXPECT_EQ(res.header("Location"), "") << context;
  EXPECT_NE(res.header("Content-Type").find("text/html"), std::string::npos) << context;
}

// A redirect to the client with `error`, the state as sent and iss.
inline void expect_error_redirect(const HttpResponse& res, const std::string& error,
                                  const std::string& context) {
  ASSERT_EQ(res.status, 302) << context << ": " << res.body;
  EXPECT_EQ(location_base(res), kRedirect) << context;
  auto parameters = location_parameters(res);
  EXPECT_EQ(parameters["error"], error) << context;
  EXPECT_EQ(parameters["state"], "st-123") << context;
  EXPECT_EQ(parameters["iss"], kIssuer) << context;
  EXPECT_EQ(parameters.count("code"), 0u) << context;
}

inline std::vector<std::pair<std::string, std::string>> with(
    std::vector<std::pair<std::string, std::string>> parameters, const std::string& name,
    const std::optional<std::string>& value) {
  std::erase_if(parameters, [&](const auto& pair) { return pair.first == name; });
  if (value) parameters.emplace_back(name, *value);
  return parameters;
}

// ---- refresh tokens (17.10) ---------------------------------------------------------

inline const std::string kOffline = "openid email offline_access";

inline HttpResponse refresh(const AuthdProcess& authd, const nlohmann::json& client,
                            const std::string& token,
                            const std::optional<std::string>& scope = {}) {
  std::vector<std::pair<std::string, std::string>> form = {{"grant_type", "refresh_token"},
                                                           {"refresh_token", token}};
  if (scope) form.emplace_back("scope", *scope);
  return token_request(authd, form, client["clientId"], client.value("clientSecret", ""));
}

// A code flow with offline_access: the token endpoint's answer.
inline nlohmann::json offline_tokens(const AuthdProcess& authd, const nlohmann::json& client,
                                     const std::string& cookie,
                                     const std::string& scope = kOffline) {
  Pkce pkce;
  std::string code = code_for(authd, client, cookie, pkce, scope);
  HttpResponse res = exchange_code(authd, client, code, pkce);
  EXPECT_EQ(res.status, 200) << res.body;
  return res.status == 200 ? res.json() : nlohmann::json::object();
}

inline int userinfo_status(const AuthdProcess& authd, const std::string& access) {
  return get_with_token(authd.port(), "/oauth2/userinfo", access).status;
}

}  // namespace authd::test
