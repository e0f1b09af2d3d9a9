// interface.md 17.6-17.9, 17.15: the authorization code's single use and
// bindings, the token endpoint, the ID token's claims and userinfo, end to
// end over real HTTP on SQLite and PostgreSQL. Names follow the OpenID
// Foundation's Basic OP conformance modules where one covers the rule.
#include <thread>

#include "oidc_support.hpp"
#include "passkey_support.hpp"

namespace authd::test {
namespace {

// ---- 17.6 the code -------------------------------------------------------------

// oidcc-codereuse: the second use fails, and the tokens of the first are
// revoked.
TEST(OidcTokens, Interface_17_6_oidcc_codereuse) {
  AuthdProcess authd(oidc_args());
  std::string cookie = signed_in(authd);
  nlohmann::json client = register_client(authd);
  Pkce pkce;
  std::string code = code_for(authd, client, cookie, pkce);
  HttpResponse first = exchange_code(authd, client, code, pkce);
  ASSERT_EQ(first.status, 200) << first.body;
  std::string access = first.json()["access_token"];
  EXPECT_EQ(get_with_token(authd.port(), "/oauth2/userinfo", access).status, 200);
  HttpResponse second = exchange_code(authd, client, code, pkce);
  EXPECT_EQ(second.status, 400);
  EXPECT_EQ(second.json()["error"], "invalid_grant");
  EXPECT_EQ(get_with_token(authd.port(), "/oauth2/userinfo", access).status, 401);
  EXPECT_EQ(events_of_type(authd, "oauth.code_reused").size(), 1u);
}

// The code is bound to its client, redirect URI and PKCE challenge.
TEST(OidcTokens, Interface_17_6_CodeIsBoundToClientRedirectUriAndVerifier) {
  AuthdProcess authd(oidc_args());
  std::string cookie = signed_in(authd);
  nlohmann::json client = register_client(authd);
  nlohmann::json other = register_client(authd);
  Pkce pkce;
  std::string code = code_for(authd, client, cookie, pkce);
  Pkce wrong;
  for (const HttpResponse& res :
       {exchange_code(authd, client, code, wrong),
        exchange_code(authd, client, code, pkce, "https://app.example.com/other"),
        exchange_code(authd, other, code, pkce),
        exchange_code(authd, client, "authdac_unknown", pkce)}) {
    EXPECT_EQ(res.status, 400) << res.body;
    EXPECT_EQ(res.json()["error"], "invalid_grant") << res.body;
  }
  // None of those used it up.
  EXPECT_EQ(exchange_code(authd, client, code, pkce).status, 200);
}

// 17.15: a code whose authd session has ended meanwhile is void.
TEST(OidcTokens, Interface_17_15_CodeOfAnEndedSessionFails) {
  AuthdProcess authd(oidc_args());
  std::string cookie = signed_in(authd);
  nlohmann::json client = register_client(authd);
  Pkce pkce;
  std::string code = code_for(authd, client, cookie, pkce);
  EXPECT_EQ(post_with_token(authd.port(), "/logout", cookie).status, 200);
  HttpResponse res = exchange_code(authd, client, code, pkce);
  EXPECT_EQ(res.status, 400);
  EXPECT_EQ(res.json()["error"], "invalid_grant");
}

// One code redeemed by eight clients at once: exactly one gets tokens.
TEST(OidcTokens, Interface_17_6_ConcurrentExchangesOfOneCodeGiveOneWinner) {
  AuthdProcess authd(oidc_args());
  std::string cookie = signed_in(authd);
  nlohmann::json client = register_client(authd);
  Pkce pkce;
  std::string code = code_for(authd, client, cookie, pkce);
  std::vector<int> statuses(8);
  std::vector<std::thread> threads;
  for (std::size_t i = 0; i < statuses.size(); ++i)
    threads.emplace_back([&, i] { statuses[i] = exchange_code(authd, client, code, pkce).status; });
  for (std::thread& thread : threads) thread.join();
  EXPECT_EQ(std::count(statuses.begin(), statuses.end(), 200), 1);
  EXPECT_EQ(std::count(statuses.begin(), statuses.end(), 400), 7);
}

// ---- 17.7 the token endpoint ---------------------------------------------------

TEST(OidcTokens, Interface_17_7_TokenEndpointErrorsTakeTheStandardShape) {
  AuthdProcess authd(oidc_args());
  nlohmann::json client = register_client(authd);
  std::string id = client["clientId"];
  std::string secret = client["clientSecret"];
  auto expect_error = [](const HttpResponse& res, int status, const std::string& error,
                         const std::string& context) {
    EXPECT_EQ(res.status, status) << context << ": " << res.body;
    if (res.status != status) return;
    EXPECT_EQ(res.json()["error"], error) << context;
    EXPECT_EQ(res.header("Cache-Control"), "no-store") << context;
  };
  HttpResponse json = send_request(authd.port(), "POST", "/oauth2/token",
                                   {{"Content-Type", "application/json"}}, "{}");
  expect_error(json, 400, "invalid_request", "JSON body");
  expect_error(token_request(authd, {{"code", "x"}}, id, secret), 400, "invalid_request",
               "no grant_type");
  expect_error(token_request(authd, {{"grant_type", "password"}}, id, secret), 400,
               "unsupported_grant_type", "password grant");
  expect_error(token_request(authd, {{"grant_type", "authorization_code"}}, id, secret), 400,
               "invalid_request", "no code");
  HttpResponse wrong =
      token_request(authd, {{"grant_type", "authorization_code"}}, id, "authdcs_wrong");
  expect_error(wrong, 401, "invalid_client", "wrong secret");
  EXPECT_EQ(wrong.header("WWW-Authenticate"), "Basic realm=\"authd\"");
  expect_error(token_request(authd, {{"grant_type", "authorization_code"}, {"client_id", id}}), 401,
               "invalid_client", "confidential client without its secret");
}

// ---- 17.8 userinfo -------------------------------------------------------------

// oidcc-userinfo-get, oidcc-userinfo-post-header, oidcc-userinfo-post-body,
// and the Bearer challenges of RFC 6750.
TEST(OidcTokens, Interface_17_8_oidcc_userinfo_get_post_header_post_body) {
  AuthdProcess authd(oidc_args());
  std::string cookie = signed_in(authd);
  nlohmann::json client = register_client(authd);
  Pkce pkce;
  std::string access = exchange_code(authd, client, code_for(authd, client, cookie, pkce), pkce)
                           .json()["access_token"];
  EXPECT_EQ(get_with_token(authd.port(), "/oauth2/userinfo", access).status, 200);
  EXPECT_EQ(post_with_token(authd.port(), "/oauth2/userinfo", access).status, 200);
  HttpResponse body = send_request(authd.port(), "POST", "/oauth2/userinfo",
                                   {{"Content-Type", "application/x-www-form-urlencoded"}},
                                   "access_token=" + access);
  EXPECT_EQ(body.status, 200) << body.body;
  EXPECT_EQ(body.json()["email"], kEmail);

  HttpResponse none = send_request(authd.port(), "GET", "/oauth2/userinfo");
  EXPECT_EQ(none.status, 401);
  EXPECT_EQ(none.header("WWW-Authenticate"), "Bearer realm=\"authd\"");
  HttpResponse unknown = get_with_token(authd.port(), "/oauth2/userinfo", "authdat_unknown");
  EXPECT_EQ(unknown.status, 401);
  EXPECT_EQ(unknown.header("WWW-Authenticate"), "Bearer realm=\"authd\", error=\"invalid_token\"");
  HttpResponse session = get_with_token(authd.port(), "/oauth2/userinfo", cookie);
  EXPECT_EQ(session.status, 401) << "a session token is not an access token";
  HttpResponse both = send_request(authd.port(), "POST", "/oauth2/userinfo",
                                   {{"Content-Type", "application/x-www-form-urlencoded"},
                                    {"Authorization", "Bearer " + access}},
                                   "access_token=" + access);
  EXPECT_EQ(both.status, 400);
}

// 17.15: without openid, a plain OAuth 2 request: no ID token, and userinfo
// refuses its token (403 insufficient_scope).
TEST(OidcTokens, Interface_17_15_WithoutOpenidNoIdTokenAndUserinfoRefuses) {
  AuthdProcess authd(oidc_args());
  std::string cookie = signed_in(authd);
  nlohmann::json client = register_client(authd);
  Pkce pkce;
  nlohmann::json tokens =
      exchange_code(authd, client, code_for(authd, client, cookie, pkce, "email"), pkce).json();
  EXPECT_FALSE(tokens.contains("id_token")) << tokens.dump();
  HttpResponse info = get_with_token(authd.port(), "/oauth2/userinfo", tokens["access_token"]);
  EXPECT_EQ(info.status, 403);
  EXPECT_EQ(info.header("WWW-Authenticate"),
            "Bearer realm=\"authd\", error=\"insufficient_scope\"");
}

// 17.9: an access token is not a session token: GET /me refuses it.
TEST(OidcTokens, Interface_17_9_MeRefusesAnAccessToken) {
  AuthdProcess authd(oidc_args());
  std::string cookie = signed_in(authd);
  nlohmann::json client = register_client(authd);
  Pkce pkce;
  std::string access = exchange_code(authd, client, code_for(authd, client, cookie, pkce), pkce)
                           .json()["access_token"];
  HttpResponse me = get_with_token(authd.port(), "/me", access);
  EXPECT_EQ(me.status, 401);
}

// 17.8: a client registered for ES256 gets ES256 ID tokens; the profile
// scope's claims.
TEST(OidcTokens, Interface_17_8_oidcc_idtoken_es256_and_profile_claims) {
  AuthdProcess authd(oidc_args());
  std::string cookie = signed_in(authd);
  nlohmann::json client = register_client(authd, {{"idTokenSignedResponseAlg", "ES256"}});
  Pkce pkce;
  nlohmann::json tokens =
      exchange_code(authd, client, code_for(authd, client, cookie, pkce, "openid profile"), pkce)
          .json();
  std::string id_token = tokens["id_token"];
  EXPECT_EQ(jwt_header(id_token)["alg"], "ES256");
  nlohmann::json claims = jwt_payload(id_token);
  EXPECT_TRUE(claims["updated_at"].is_number_integer()) << claims.dump();
  EXPECT_FALSE(claims.contains("email"));
}

}  // namespace
}  // namespace authd::test
