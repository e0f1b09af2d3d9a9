// interface.md 17.7, 17.8.2, 17.9: the client_credentials grant end to end
// over real HTTP, on SQLite and PostgreSQL (AUTHD_TEST_POSTGRES): who may
// use it, what the answer holds, the scopes a machine may not have, the
// resource indicator, and the token refused where a user is needed.
#include "oidc_support.hpp"

namespace authd::test {
namespace {

nlohmann::json machine_client(const AuthdProcess& authd, nlohmann::json overrides = {}) {
  nlohmann::json body = {{"grantTypes", {"client_credentials"}},
                         {"scopes", nlohmann::json::array()}};
  if (overrides.is_object()) body.update(overrides);
  return register_client(authd, body);
}

HttpResponse client_credentials(const AuthdProcess& authd, const nlohmann::json& client,
                                std::vector<std::pair<std::string, std::string>> more = {}) {
  more.insert(more.begin(), {"grant_type", "client_credentials"});
  return token_request(authd, more, client["clientId"], client["clientSecret"]);
}

void expect_oauth_error(const HttpResponse& res, int status, const std::string& error) {
  EXPECT_EQ(res.status, status) << res.body;
  if (res.status != status) return;
  EXPECT_EQ(res.json()["error"], error) << res.body;
  EXPECT_EQ(res.header("Cache-Control"), "no-store");
}

// 17.7: an opaque authdat_ token, Bearer, its lifetime; no ID token, no
// refresh token, and no scope when none was granted.
TEST(OidcClientCredentialsGrant, Interface_17_7_ClientCredentialsIssuesAnOpaqueAccessToken) {
  AuthdProcess authd(oidc_args({"--oidc-access-token-ttl", "7m"}));
  nlohmann::json client = machine_client(authd);
  HttpResponse res = client_credentials(authd, client);
  ASSERT_EQ(res.status, 200) << res.body;
  EXPECT_EQ(res.header("Cache-Control"), "no-store");
  EXPECT_EQ(res.header("Pragma"), "no-cache");
  nlohmann::json body = res.json();
  std::string token = body["access_token"];
  EXPECT_EQ(token.rfind("authdat_", 0), 0u) << token;
  EXPECT_EQ(token.size(), 8u + 43u) << "256 bits in base64url";
  EXPECT_EQ(body["token_type"], "Bearer");
  EXPECT_EQ(body["expires_in"], 420);
  EXPECT_FALSE(body.contains("id_token"));
  EXPECT_FALSE(body.contains("refresh_token"));
  EXPECT_FALSE(body.contains("scope")) << "nothing granted: omitted";
  // Each request, a new token.
  EXPECT_NE(client_credentials(authd, client).json()["access_token"], token);
}

// 17.7: client_secret_post works as Basic does; a wrong secret is 401
// invalid_client; a client without the grant is unauthorized_client.
TEST(OidcClientCredentialsGrant, Interface_17_7_ClientCredentialsNeedsTheGrantAndTheSecret) {
  AuthdProcess authd(oidc_args());
  nlohmann::json client = machine_client(authd);
  HttpResponse post = token_request(authd, {{"grant_type", "client_credentials"},
                                            {"client_id", client["clientId"]},
                                            {"client_secret", client["clientSecret"]}});
  EXPECT_EQ(post.status, 200) << post.body;
  HttpResponse wrong = token_request(authd, {{"grant_type", "client_credentials"}},
                                     client["clientId"], "authdcs_wrong");
  expect_oauth_error(wrong, 401, "invalid_client");
  nlohmann::json web = register_client(authd);  // authorization_code, refresh_token
  expect_oauth_error(client_credentials(authd, web), 400, "unauthorized_client");
  // A public client cannot have the grant at all (17.3.1).
  std::string key = admin::create_key(authd, "cc-tests");
  HttpResponse public_client = admin::call(authd, key, "POST", "/admin/clients",
                                           {{"name", "CLI"},
                                            {"type", "public"},
                                            {"redirectUris", {"http://127.0.0.1/cb"}},
                                            {"grantTypes", {"client_credentials"}}});
  EXPECT_EQ(public_client.status, 400) << public_client.body;
}

// 17.7 (decision of 17.15): the user scopes are not a machine's
// (invalid_scope); unknown scopes are ignored; a resource must be an
// absolute URI without fragment (RFC 8707 2, invalid_target).
TEST(OidcClientCredentialsGrant, Interface_17_7_ClientCredentialsScopesAndResource) {
  AuthdProcess authd(oidc_args());
  nlohmann::json client = machine_client(authd);
  for (const char* scope : {"openid", "email", "reports:read profile", "offline_access"})
    expect_oauth_error(client_credentials(authd, client, {{"scope", scope}}), 400, "invalid_scope");
  HttpResponse unknown = client_credentials(authd, client, {{"scope", "reports:read"}});
  ASSERT_EQ(unknown.status, 200) << unknown.body;
  EXPECT_FALSE(unknown.json().contains("scope"));
  for (const char* resource : {"api.example.com", "https://api.example.com/#x", "/relative"})
    expect_oauth_error(client_credentials(authd, client, {{"resource", resource}}), 400,
                       "invalid_target");
  EXPECT_EQ(client_credentials(authd, client, {{"resource", "https://api.example.com/v1"}}).status,
            200);
}

// 17.8.2, 17.9: a client's token has no user: userinfo answers it as an
// invalid token, and GET /me as an unknown one.
TEST(OidcClientCredentialsGrant, Interface_17_8_UserinfoRefusesAClientToken) {
  AuthdProcess authd(oidc_args());
  nlohmann::json client = machine_client(authd);
  std::string token = client_credentials(authd, client).json()["access_token"];
  for (HttpResponse res : {get_with_token(authd.port(), "/oauth2/userinfo", token),
                           post_with_token(authd.port(), "/oauth2/userinfo", token)}) {
    EXPECT_EQ(res.status, 401) << res.body;
    EXPECT_EQ(res.header("WWW-Authenticate"), "Bearer realm=\"authd\", error=\"invalid_token\"");
  }
  EXPECT_EQ(get_with_token(authd.port(), "/me", token).status, 401);
}

}  // namespace
}  // namespace authd::test
