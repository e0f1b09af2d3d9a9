// interface.md 17.3-17.9: the attacks of docs/design/threat-model/
// oidc-provider.md that authd already withstood when they were first tried,
// kept so that it goes on withstanding them; on SQLite and PostgreSQL.
#include <algorithm>
#include <thread>

#include "oidc_support.hpp"
#include "passkey_support.hpp"

namespace authd::test {
namespace {

using ProbeParameters = std::vector<std::pair<std::string, std::string>>;

std::string probe_signed_in(const AuthdProcess& authd) {
  authd.add_user(kEmail, kPassword);
  return authd.login(kEmail, kPassword);
}

ProbeParameters probe_with(ProbeParameters parameters, const std::string& name,
                           const std::string& value) {
  std::erase_if(parameters, [&](const auto& pair) { return pair.first == name; });
  parameters.emplace_back(name, value);
  return parameters;
}

// ---- probes --------------------------------------------------------------------

// Redirect URI look-alikes (prefix, traversal, encoding, case, userinfo,
// backslash, trailing dot, ports, loopback spellings, localhost, fragment,
// query, control bytes): each gets authd's page, never a redirect (17.3.2,
// 17.4.1); only the loopback port may vary (RFC 8252 7.3).
TEST(OidcAttackRegression, Interface_17_4_RedirectUriLookAlikesGetTheOwnPage) {
  AuthdProcess authd(oidc_args());
  nlohmann::json client = register_client(
      authd, {{"redirectUris", {kRedirect, "http://127.0.0.1/cb", "http://[::1]:9000/cb"}}});
  Pkce pkce;
  for (std::string uri :
       std::vector<std::string>{"https://app.example.com/callback/",
                                "https://app.example.com/callback/../evil",
                                "https://app.example.com/callback%2F..%2Fevil",
                                "https://APP.example.com/callback",
                                "https://app.example.com./callback",
                                "https://app.example.com/Callback",
                                "https://app.example.com/callback?x=1",
                                "https://app.example.com/callback#f",
                                "https://evil@app.example.com/callback",
                                "https://app.example.com@evil.com/callback",
                                "https://app.example.com\\@evil.com/callback",
                                "https://app.example.com:443/callback",
                                "https://app.example.com/callbackx",
                                "https://app.example.com/callbac",
                                "http://app.example.com/callback",
                                "https://app.example.com:8443/callback",
                                "http://127.0.0.1:8080/cb/../x",
                                "http://127.0.0.1:8080/cbx",
                                "http://127.0.0.1:8080/cb?a",
                                "http://127.0.0.1:8080@evil.com/cb",
                                "http://127.0.0.1:0/cb",
                                "http://127.0.0.1:65536/cb",
                                "http://127.0.0.1:+80/cb",
                                "http://127.0.0.1:8080/cb#x",
                                "http://[0:0:0:0:0:0:0:1]:9000/cb",
                                "http://localhost:8080/cb",
                                "http://127.1:8080/cb",
                                "http://127.0.0.1.evil.com/cb",
                                "http://[::1]:9000/cb/",
                                "http://[::ffff:127.0.0.1]/cb",
                                "https://app.example.com/callback\r\nX: y",
                                std::string("https://app.example.com/callback\0x", 34)}) {
    HttpResponse res =
        authorize(authd, probe_with(code_request(client["clientId"], pkce), "redirect_uri", uri));
    EXPECT_EQ(res.status, 400) << uri << " -> " << res.header("Location");
    EXPECT_EQ(res.header("Location"), "") << uri;
  }
  for (std::string uri :
       std::vector<std::string>{"http://127.0.0.1:8080/cb", "http://[::1]:1234/cb"}) {
    HttpResponse res =
        authorize(authd, probe_with(code_request(client["clientId"], pkce), "redirect_uri", uri));
    EXPECT_EQ(res.status, 302) << uri << " " << res.body;
  }
}

// CRLF in state, markup in a client name, frames, consent posts of other
// origins, token types used where they do not belong, and no code, token,
// secret or request id in the log (17.4, 17.5, 17.9).
TEST(OidcAttackRegression, Interface_17_9_PagesTokensAndLogsHoldUnderAttack) {
  AuthdProcess authd(oidc_args());
  std::string cookie = probe_signed_in(authd);
  nlohmann::json client =
      register_client(authd, {{"firstParty", false}, {"name", "<script>alert(1)</script>\"'"}});
  Pkce pkce;
  HttpResponse crlf = authorize(
      authd, probe_with(code_request(client["clientId"], pkce), "state", "a\r\nSet-Cookie: x=y"),
      cookie);
  EXPECT_EQ(crlf.header("Set-Cookie"), "") << crlf.header("Location");
  std::string id = location_parameters(crlf)["request"];
  HttpResponse page = browser_get(authd, "/consent?request=" + id, cookie);
  EXPECT_EQ(page.body.find("<script>"), std::string::npos);
  EXPECT_EQ(page.header("X-Frame-Options"), "DENY");
  for (std::string target :
       std::vector<std::string>{"/signin?request=x", "/oauth2/authorize", "/consent?request=<x>",
                                "/oauth2/authorize/resume?request=%3Cscript%3E"}) {
    HttpResponse p = browser_get(authd, target, cookie);
    EXPECT_EQ(p.header("X-Frame-Options"), "DENY") << target << " " << p.status;
    EXPECT_EQ(p.body.find("<script>"), std::string::npos) << target;
  }
  // Consent: no Origin, Origin null.
  for (std::string origin :
       std::vector<std::string>{"", "null", kIssuer + ".evil.com", "http://127.0.0.1:1"}) {
    Headers headers = {{"Content-Type", "application/x-www-form-urlencoded"},
                       {"Cookie", "authd_session=" + cookie}};
    if (!origin.empty()) headers.emplace_back("Origin", origin);
    HttpResponse r = send_request(authd.port(), "POST", "/oauth2/consent", headers,
                                  "request=" + id + "&decision=allow");
    EXPECT_EQ(r.status, 403) << origin;
  }
  // Type confusion.
  nlohmann::json first = register_client(authd);
  Pkce p2;
  std::string code = code_for(authd, first, cookie, p2);
  HttpResponse tokens = exchange_code(authd, first, code, p2);
  ASSERT_EQ(tokens.status, 200) << tokens.body;
  std::string access = tokens.json()["access_token"];
  EXPECT_EQ(get_with_token(authd.port(), "/me", access).status, 401);
  EXPECT_EQ(get_with_token(authd.port(), "/oauth2/userinfo", cookie).status, 401);
  EXPECT_EQ(get_with_token(authd.port(), "/oauth2/userinfo", code).status, 401);
  Headers bearer = {{"Authorization", "Bearer " + access}};
  EXPECT_NE(send_request(authd.port(), "POST", "/logout", bearer).status, 204);
  EXPECT_NE(send_request(authd.port(), "DELETE", "/sessions/current", bearer).status, 204);
  std::string log = authd.log_text();
  for (std::string secret :
       std::vector<std::string>{code, access, cookie, first["clientSecret"].get<std::string>(), id})
    EXPECT_EQ(log.find(secret), std::string::npos) << secret.substr(0, 8);
  for (std::string prefix :
       std::vector<std::string>{"authdac_", "authdat_", "authdcs_", "authdar_"})
    EXPECT_EQ(log.find(prefix), std::string::npos) << prefix;
}

// A code redeemed by another client or with another verifier; plain PKCE;
// a code and token of a deleted client (17.3, 17.6).
TEST(OidcAttackRegression, Interface_17_6_CodeInjectionIsRefused) {
  AuthdProcess authd(oidc_args());
  std::string cookie = probe_signed_in(authd);
  nlohmann::json a = register_client(authd);
  nlohmann::json b = register_client(authd);
  Pkce pkce;
  std::string code = code_for(authd, a, cookie, pkce);
  EXPECT_EQ(exchange_code(authd, b, code, pkce).status, 400);
  Pkce other;
  EXPECT_EQ(exchange_code(authd, a, code, other).status, 400);
  HttpResponse ok = exchange_code(authd, a, code, pkce);
  EXPECT_EQ(ok.status, 200) << ok.body;
  // plain PKCE, missing method.
  ProbeParameters plain =
      probe_with(code_request(a["clientId"], pkce), "code_challenge_method", "plain");
  EXPECT_NE(location_parameters(authorize(authd, plain, cookie))["error"], "");
  // A disabled user's code.
  Pkce p3;
  std::string code3 = code_for(authd, a, cookie, p3);
  // Client deleted mid-flow: its code.
  std::string key = admin::create_key(authd, "k2");
  admin::call(authd, key, "DELETE", "/admin/clients/" + a["clientId"].get<std::string>());
  EXPECT_NE(exchange_code(authd, a, code3, p3).status, 200);
  EXPECT_EQ(get_with_token(authd.port(), "/oauth2/userinfo", ok.json()["access_token"]).status,
            401);
}

// Large and many parameters, bytes that are not UTF-8: never a 500, and
// authd still answers (17.4).
TEST(OidcAttackRegression, Interface_17_4_BigAndOddInputsAreAnswered) {
  AuthdProcess authd(oidc_args());
  nlohmann::json client = register_client(authd);
  Pkce pkce;
  Headers form = {{"Content-Type", "application/x-www-form-urlencoded"}};
  // A state of 15,000 bytes, under the body limit: it waits as any other.
  HttpResponse big = send_request(authd.port(), "POST", "/oauth2/authorize", form,
                                  form_encoded(probe_with(code_request(client["clientId"], pkce),
                                                          "state", std::string(15000, 'a'))));
  EXPECT_EQ(location_base(big), kIssuer + "/signin") << big.status;
  // 2,000 unknown parameters are ignored.
  std::string many;
  for (int i = 0; i < 2000; ++i) many += "p" + std::to_string(i) + "=x&";
  HttpResponse wide = send_request(authd.port(), "POST", "/oauth2/authorize", form,
                                   many + form_encoded(code_request(client["clientId"], pkce)));
  EXPECT_EQ(location_base(wide), kIssuer + "/signin") << wide.status;
  for (const char* name : {"scope", "state", "login_hint", "nonce"}) {
    HttpResponse odd =
        authorize(authd, probe_with(code_request(client["clientId"], pkce), name, "\xff\xc3"));
    EXPECT_EQ(location_parameters(odd)["error"], "invalid_request") << name << ": " << odd.status;
  }
  EXPECT_EQ(send_request(authd.port(), "GET", "/healthz").status, 200);
}

// Client secret guesses count as failed logins of the client address;
// past the limit 429, even for the right secret (17.7).
TEST(OidcAttackRegression, Interface_17_7_ClientSecretGuessesAreThrottled) {
  AuthdProcess authd(oidc_args({"--login-client-limit", "3/15m"}));
  nlohmann::json client = register_client(authd);
  std::vector<int> statuses;
  for (int i = 0; i < 5; ++i) {
    HttpResponse r = token_request(authd,
                                   {{"grant_type", "authorization_code"},
                                    {"code", "x"},
                                    {"redirect_uri", kRedirect},
                                    {"code_verifier", "y"}},
                                   client["clientId"], "authdcs_wrong" + std::to_string(i));
    statuses.push_back(r.status);
  }
  HttpResponse right = token_request(authd,
                                     {{"grant_type", "authorization_code"},
                                      {"code", "x"},
                                      {"redirect_uri", kRedirect},
                                      {"code_verifier", "y"}},
                                     client["clientId"], client["clientSecret"]);
  EXPECT_EQ(statuses, (std::vector<int>{401, 401, 401, 429, 429}));
  EXPECT_EQ(right.status, 429);
  EXPECT_FALSE(right.header("Retry-After").empty());
}

// Odd bytes in paths, codes, verifiers, request ids and bearer tokens are
// answered, never with a 500; a code dies with its session (17.5.5, 17.6).
TEST(OidcAttackRegression, Interface_17_6_OddBytesAndEndedSessions) {
  AuthdProcess authd(oidc_args());
  authd.add_user(kEmail, kPassword);
  std::string cookie = authd.login(kEmail, kPassword);
  for (std::string path : std::vector<std::string>{"/consents/%FF", "/consents/a%00b",
                                                   "/consents/" + std::string(3000, 'a')}) {
    HttpResponse r =
        send_request(authd.port(), "DELETE", path, {{"Authorization", "Bearer " + cookie}});
    EXPECT_NE(r.status, 500);
  }
  nlohmann::json client = register_client(authd);
  Pkce pkce;
  std::string code = code_for(authd, client, cookie, pkce);
  for (std::string v : std::vector<std::string>{std::string("\xff") + std::string(50, 'a'),
                                                std::string(50, 'a') + std::string("\0", 1)}) {
    HttpResponse r = token_request(authd,
                                   {{"grant_type", "authorization_code"},
                                    {"code", code + "\xff"},
                                    {"redirect_uri", kRedirect + "\xff"},
                                    {"code_verifier", v}},
                                   client["clientId"], client["clientSecret"]);
    EXPECT_NE(r.status, 500);
  }
  HttpResponse r = send_request(authd.port(), "GET", "/oauth2/authorize/resume?request=%FF%00", {});
  EXPECT_NE(r.status, 500);
  r = send_request(authd.port(), "GET", "/consent?request=%FF%00",
                   {{"Cookie", "authd_session=" + cookie}});
  EXPECT_NE(r.status, 500);
  r = send_request(authd.port(), "GET", "/oauth2/userinfo", {{"Authorization", "Bearer \xff\xfe"}});
  EXPECT_NE(r.status, 500);
  // A code whose session signs out is void (17.6).
  Pkce p3;
  std::string code3 = code_for(authd, client, cookie, p3);
  HttpResponse out =
      send_request(authd.port(), "POST", "/logout", {{"Authorization", "Bearer " + cookie}});
  ASSERT_EQ(out.status, 200) << out.body;
  EXPECT_EQ(exchange_code(authd, client, code3, p3).status, 400);
}

// oidcc-codereuse at once: of six redemptions of a code in parallel, one
// gets tokens; a disabled user's code and token stop working (17.6, 17.8).
TEST(OidcAttackRegression, Interface_17_6_oidcc_codereuse_ConcurrentRedemptionsGiveOneToken) {
  AuthdProcess authd(oidc_args());
  authd.add_user(kEmail, kPassword);
  std::string cookie = authd.login(kEmail, kPassword);
  nlohmann::json client = register_client(authd);
  for (int round = 0; round < 5; ++round) {
    Pkce pkce;
    std::string code = code_for(authd, client, cookie, pkce);
    std::vector<int> statuses(6);
    std::vector<std::thread> threads;
    for (int i = 0; i < 6; ++i)
      threads.emplace_back(
          [&, i] { statuses[i] = exchange_code(authd, client, code, pkce).status; });
    for (auto& th : threads) th.join();
    EXPECT_EQ(std::count(statuses.begin(), statuses.end(), 200), 1) << round;
  }
  // A disabled user's code and token.
  Pkce pkce;
  std::string code = code_for(authd, client, cookie, pkce);
  Pkce p2;
  std::string code2 = code_for(authd, client, cookie, p2);
  std::string access = exchange_code(authd, client, code2, p2).json()["access_token"];
  std::string key = admin::create_key(authd, "probe");
  nlohmann::json users = admin::call(authd, key, "GET", "/admin/users").json();
  std::string id = users["users"][0]["id"];
  HttpResponse d =
      admin::call(authd, key, "PATCH", "/admin/users/" + id, nlohmann::json{{"disabled", true}});
  EXPECT_EQ(exchange_code(authd, client, code, pkce).status, 400);
  EXPECT_EQ(get_with_token(authd.port(), "/oauth2/userinfo", access).status, 401);
}

}  // namespace
}  // namespace authd::test
