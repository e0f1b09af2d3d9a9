// interface.md 17.9: JWT access tokens (RFC 9068) for the clients registered
// with accessTokenFormat "jwt", the resource indicator (RFC 8707) at the
// authorization and token endpoints, /oauth2/userinfo taking a JWT access
// token, and GET /me refusing every OAuth access token. End to end over
// real HTTP on SQLite and PostgreSQL.
#include "oidc_support.hpp"

namespace authd::test {
namespace {

constexpr const char* kResource = "https://api.example.com/v1";

nlohmann::json jwt_client(const AuthdProcess& authd, const std::string& alg = "RS256") {
  return register_client(authd, {{"accessTokenFormat", "jwt"}, {"idTokenSignedResponseAlg", alg}});
}

// A code flow with `extra` authorization parameters: the token response.
HttpResponse tokens_with(const AuthdProcess& authd, const nlohmann::json& client,
                         const std::string& cookie,
                         const std::vector<std::pair<std::string, std::string>>& extra = {},
                         const std::vector<std::pair<std::string, std::string>>& token_extra = {}) {
  Pkce pkce;
  auto parameters = code_request(client["clientId"], pkce);
  parameters.insert(parameters.end(), extra.begin(), extra.end());
  HttpResponse authorized = authorize(authd, parameters, cookie);
  EXPECT_EQ(authorized.status, 302) << authorized.body;
  std::vector<std::pair<std::string, std::string>> form = {
      {"grant_type", "authorization_code"},
      {"code", location_parameters(authorized)["code"]},
      {"redirect_uri", kRedirect},
      {"code_verifier", pkce.verifier}};
  form.insert(form.end(), token_extra.begin(), token_extra.end());
  return token_request(authd, form, client["clientId"], client["clientSecret"]);
}

std::string replace_part(const std::string& jwt, int index, const std::string& part) {
  std::size_t first = jwt.find('.');
  std::size_t second = jwt.find('.', first + 1);
  if (index == 1) return jwt.substr(0, first + 1) + part + jwt.substr(second);
  return jwt.substr(0, second + 1) + part;
}

TEST(OidcJwtAccess, Interface_17_9_JwtAccessTokenCarriesRfc9068HeaderAndClaims) {
  AuthdProcess authd(oidc_args());
  std::string cookie = signed_in(authd);
  for (const std::string alg : {"RS256", "ES256"}) {
    nlohmann::json client = jwt_client(authd, alg);
    HttpResponse res = tokens_with(authd, client, cookie);
    ASSERT_EQ(res.status, 200) << res.body;
    std::string token = res.json()["access_token"];
    nlohmann::json header = jwt_header(token);
    EXPECT_EQ(header["typ"], "at+jwt") << alg;
    EXPECT_EQ(header["alg"], alg);
    EXPECT_TRUE(header["kid"].is_string());
    nlohmann::json claims = jwt_payload(token);
    nlohmann::json id_claims = jwt_payload(res.json()["id_token"]);
    EXPECT_EQ(claims["iss"], kIssuer);
    EXPECT_EQ(claims["aud"], kIssuer);  // no resource: the issuer
    EXPECT_EQ(claims["sub"], id_claims["sub"]);
    EXPECT_EQ(claims["client_id"], client["clientId"]);
    EXPECT_EQ(claims["scope"], "openid email");
    EXPECT_EQ(claims["auth_time"], id_claims["auth_time"]);
    EXPECT_EQ(claims["exp"].get<std::int64_t>() - claims["iat"].get<std::int64_t>(), 600);
    EXPECT_EQ(res.json()["expires_in"], 600);
    EXPECT_EQ(from_base64url(claims["jti"].get<std::string>()).value_or("").size(), 32u);
    // 17.8: userinfo takes it like an opaque token.
    HttpResponse info = get_with_token(authd.port(), "/oauth2/userinfo", token);
    ASSERT_EQ(info.status, 200) << info.body;
    EXPECT_EQ(info.json()["sub"], claims["sub"]);
    EXPECT_EQ(info.json()["email"], kEmail);
  }
  // A client of the default format still gets an opaque token.
  HttpResponse opaque = tokens_with(authd, register_client(authd), cookie);
  ASSERT_EQ(opaque.status, 200);
  EXPECT_TRUE(opaque.json()["access_token"].get<std::string>().starts_with("authdat_"));
}

TEST(OidcJwtAccess, Interface_17_9_UserinfoRefusesAlteredJwt) {
  AuthdProcess authd(oidc_args());
  std::string cookie = signed_in(authd);
  HttpResponse res = tokens_with(authd, jwt_client(authd), cookie);
  ASSERT_EQ(res.status, 200) << res.body;
  std::string token = res.json()["access_token"];
  nlohmann::json claims = jwt_payload(token);
  claims["scope"] = "openid email profile phone";
  std::string widened = replace_part(token, 1, base64url(claims.dump()));
  std::string resigned = replace_part(token, 2, base64url(std::string(256, 'x')));
  nlohmann::json none_header = {
      {"alg", "none"}, {"typ", "at+jwt"}, {"kid", jwt_header(token)["kid"]}};
  std::string unsigned_jwt = base64url(none_header.dump()) + "." + base64url(claims.dump()) + ".";
  for (const std::string& altered : {widened, resigned, unsigned_jwt}) {
    HttpResponse info = get_with_token(authd.port(), "/oauth2/userinfo", altered);
    EXPECT_EQ(info.status, 401) << altered;
    EXPECT_NE(info.header("WWW-Authenticate").find("invalid_token"), std::string::npos);
  }
  // The ID token is signed by the same keys, but it is no access token.
  EXPECT_EQ(get_with_token(authd.port(), "/oauth2/userinfo", res.json()["id_token"]).status, 401);
  EXPECT_EQ(get_with_token(authd.port(), "/oauth2/userinfo", token).status, 200);
}

// The row of a JWT is found by its jti: revoking the grant (a reused code,
// 17.6) ends the JWT at userinfo too.
TEST(OidcJwtAccess, Interface_17_9_oidcc_codereuse_RevokesTheJwtAccessToken) {
  AuthdProcess authd(oidc_args());
  std::string cookie = signed_in(authd);
  nlohmann::json client = jwt_client(authd);
  Pkce pkce;
  std::string code = code_for(authd, client, cookie, pkce);
  HttpResponse first = exchange_code(authd, client, code, pkce);
  ASSERT_EQ(first.status, 200) << first.body;
  std::string token = first.json()["access_token"];
  EXPECT_EQ(get_with_token(authd.port(), "/oauth2/userinfo", token).status, 200);
  EXPECT_EQ(exchange_code(authd, client, code, pkce).status, 400);
  EXPECT_EQ(get_with_token(authd.port(), "/oauth2/userinfo", token).status, 401);
}

// 17.9: an OAuth access token is not a session token.
TEST(OidcJwtAccess, Interface_17_9_MeRefusesOpaqueAndJwtAccessTokens) {
  AuthdProcess authd(oidc_args());
  std::string cookie = signed_in(authd);
  for (const nlohmann::json& client : {register_client(authd), jwt_client(authd)}) {
    HttpResponse res = tokens_with(authd, client, cookie);
    ASSERT_EQ(res.status, 200) << res.body;
    HttpResponse me = get_with_token(authd.port(), "/me", res.json()["access_token"]);
    EXPECT_EQ(me.status, 401) << me.body;
    EXPECT_EQ(me.header("WWW-Authenticate"), R"(Bearer error="invalid_token")");
  }
  EXPECT_EQ(get_with_token(authd.port(), "/me", cookie).status, 200);
}

TEST(OidcJwtAccess, Interface_17_9_ResourceAtAuthorizeIsTheJwtAudience) {
  AuthdProcess authd(oidc_args());
  std::string cookie = signed_in(authd);
  nlohmann::json client = jwt_client(authd);
  HttpResponse res = tokens_with(authd, client, cookie, {{"resource", kResource}});
  ASSERT_EQ(res.status, 200) << res.body;
  EXPECT_EQ(jwt_payload(res.json()["access_token"])["aud"], kResource);
  // The same resource again at the token endpoint.
  HttpResponse again =
      tokens_with(authd, client, cookie, {{"resource", kResource}}, {{"resource", kResource}});
  ASSERT_EQ(again.status, 200) << again.body;
  EXPECT_EQ(jwt_payload(again.json()["access_token"])["aud"], kResource);
  // Given at the token endpoint only.
  HttpResponse late = tokens_with(authd, client, cookie, {}, {{"resource", kResource}});
  ASSERT_EQ(late.status, 200) << late.body;
  EXPECT_EQ(jwt_payload(late.json()["access_token"])["aud"], kResource);
}

TEST(OidcJwtAccess, Interface_17_9_TokenResourceOtherThanTheCodesIsInvalidTarget) {
  AuthdProcess authd(oidc_args());
  std::string cookie = signed_in(authd);
  nlohmann::json client = jwt_client(authd);
  Pkce pkce;
  auto parameters = with(code_request(client["clientId"], pkce), "resource", kResource);
  HttpResponse authorized = authorize(authd, parameters, cookie);
  ASSERT_EQ(authorized.status, 302) << authorized.body;
  std::string code = location_parameters(authorized)["code"];
  std::vector<std::pair<std::string, std::string>> form = {{"grant_type", "authorization_code"},
                                                           {"code", code},
                                                           {"redirect_uri", kRedirect},
                                                           {"code_verifier", pkce.verifier}};
  for (const std::string resource :
       {"https://other.example.com/", "relative/path", "https://api.example.com/v1#frag"}) {
    HttpResponse res = token_request(authd, with(form, "resource", resource), client["clientId"],
                                     client["clientSecret"]);
    EXPECT_EQ(res.status, 400) << resource;
    EXPECT_EQ(res.json()["error"], "invalid_target") << res.body;
    EXPECT_EQ(res.header("Cache-Control"), "no-store");
  }
  auto twice = form;
  twice.emplace_back("resource", kResource);
  twice.emplace_back("resource", kResource);
  HttpResponse repeated = token_request(authd, twice, client["clientId"], client["clientSecret"]);
  EXPECT_EQ(repeated.status, 400);
  EXPECT_EQ(repeated.json()["error"], "invalid_target");
  // None of those used the code up; without resource it keeps the code's.
  HttpResponse ok = token_request(authd, form, client["clientId"], client["clientSecret"]);
  ASSERT_EQ(ok.status, 200) << ok.body;
  EXPECT_EQ(jwt_payload(ok.json()["access_token"])["aud"], kResource);
}

TEST(OidcJwtAccess, Interface_17_9_InvalidResourceAtAuthorizeRedirectsInvalidTarget) {
  AuthdProcess authd(oidc_args());
  std::string cookie = signed_in(authd);
  nlohmann::json client = jwt_client(authd);
  Pkce pkce;
  auto parameters = code_request(client["clientId"], pkce);
  for (const std::string resource :
       {"api.example.com", "/v1", "https://api.example.com/#x", "https://api .example.com"}) {
    HttpResponse res = authorize(authd, with(parameters, "resource", resource), cookie);
    expect_error_redirect(res, "invalid_target", resource);
  }
  auto twice = with(parameters, "resource", kResource);
  twice.emplace_back("resource", "https://other.example.com/");
  expect_error_redirect(authorize(authd, twice, cookie), "invalid_target", "twice");
}

}  // namespace
}  // namespace authd::test
