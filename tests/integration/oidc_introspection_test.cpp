// interface.md 17.11 (RFC 7662): POST /oauth2/introspect end to end over
// real HTTP, on SQLite and PostgreSQL (AUTHD_TEST_POSTGRES): who may call
// it, the active answer for a user's and a client's access token, and
// {"active": false} for unknown, revoked, disabled-account and foreign
// tokens.
#include "oidc_support.hpp"
#include "passkey_support.hpp"

namespace authd::test {
namespace {

using Form = std::vector<std::pair<std::string, std::string>>;

// POST /oauth2/introspect with `form`, the caller authenticated by HTTP
// Basic.
HttpResponse introspect(const AuthdProcess& authd, const nlohmann::json& caller, Form form) {
  std::string pair =
      caller["clientId"].get<std::string>() + ":" + caller["clientSecret"].get<std::string>();
  char encoded[512];
  sodium_bin2base64(encoded, sizeof encoded, reinterpret_cast<const unsigned char*>(pair.data()),
                    pair.size(), sodium_base64_VARIANT_ORIGINAL);
  return send_request(authd.port(), "POST", "/oauth2/introspect",
                      {{"Content-Type", "application/x-www-form-urlencoded"},
                       {"Authorization", std::string("Basic ") + encoded}},
                      form_encoded(form));
}

nlohmann::json answer_for(const AuthdProcess& authd, const nlohmann::json& caller,
                          const std::string& token) {
  HttpResponse res = introspect(authd, caller, {{"token", token}});
  EXPECT_EQ(res.status, 200) << res.body;
  EXPECT_EQ(res.header("Cache-Control"), "no-store");
  return res.status == 200 ? res.json() : nlohmann::json();
}

const nlohmann::json kInactive = {{"active", false}};

// A resource server: introspects, and may get tokens of its own.
nlohmann::json resource_server(const AuthdProcess& authd) {
  return register_client(authd, {{"grantTypes", {"client_credentials"}},
                                 {"scopes", nlohmann::json::array()},
                                 {"introspection", true}});
}

std::string client_token(const AuthdProcess& authd, const nlohmann::json& client, Form more = {}) {
  more.insert(more.begin(), {"grant_type", "client_credentials"});
  HttpResponse res = token_request(authd, more, client["clientId"], client["clientSecret"]);
  EXPECT_EQ(res.status, 200) << res.body;
  return res.status == 200 ? res.json()["access_token"].get<std::string>() : "";
}

// RFC 7662 2.2: a user's access token, active, with its members; aud is the
// issuer (no resource); token_type_hint is a hint only.
TEST(OidcIntrospectionEndpoint, Interface_17_11_ActiveUserAccessToken) {
  AuthdProcess authd(oidc_args());
  std::string cookie = signed_in(authd);
  nlohmann::json web = register_client(authd);
  nlohmann::json api = resource_server(authd);
  Pkce pkce;
  nlohmann::json tokens =
      exchange_code(authd, web, code_for(authd, web, cookie, pkce), pkce).json();
  std::string access = tokens["access_token"];
  nlohmann::json me = get_with_token(authd.port(), "/oauth2/userinfo", access).json();
  nlohmann::json a = answer_for(authd, api, access);
  EXPECT_EQ(a["active"], true) << a.dump();
  EXPECT_EQ(a["client_id"], web["clientId"]);
  EXPECT_EQ(a["sub"], me["sub"]);
  EXPECT_EQ(a["scope"], "openid email");
  EXPECT_EQ(a["iss"], kIssuer);
  EXPECT_EQ(a["aud"], kIssuer);
  EXPECT_EQ(a["token_type"], "Bearer");
  EXPECT_EQ(a["exp"].get<std::int64_t>() - a["iat"].get<std::int64_t>(), 600);
  EXPECT_EQ(a.size(), 9u) << a.dump();
  for (const char* hint : {"refresh_token", "access_token", "something_else"}) {
    HttpResponse hinted = introspect(authd, api, {{"token", access}, {"token_type_hint", hint}});
    EXPECT_EQ(hinted.json(), a) << hint;
  }
  // The ID token and the session token are not access tokens.
  EXPECT_EQ(answer_for(authd, api, tokens["id_token"]), kInactive);
  EXPECT_EQ(answer_for(authd, api, cookie), kInactive);
}

// 17.7, 17.11: a client_credentials token, active, its subject the client;
// inactive once its client is deleted (17.3.1).
TEST(OidcIntrospectionEndpoint, Interface_17_11_ClientTokenActiveUntilItsClientIsDeleted) {
  AuthdProcess authd(oidc_args());
  nlohmann::json api = resource_server(authd);
  nlohmann::json machine =
      register_client(authd, {{"grantTypes", {"client_credentials"}}, {"scopes", {"openid"}}});
  std::string token = client_token(authd, machine);
  nlohmann::json a = answer_for(authd, api, token);
  EXPECT_EQ(a["active"], true) << a.dump();
  EXPECT_EQ(a["sub"], machine["clientId"]);
  EXPECT_EQ(a["client_id"], machine["clientId"]);
  EXPECT_EQ(a["aud"], kIssuer);
  EXPECT_FALSE(a.contains("scope")) << "nothing granted";
  std::string key = admin::create_key(authd, "introspection-tests");
  HttpResponse deleted =
      admin::call(authd, key, "DELETE", "/admin/clients/" + machine["clientId"].get<std::string>());
  EXPECT_EQ(deleted.status, 204) << deleted.body;
  EXPECT_EQ(answer_for(authd, api, token), kInactive);
}

// 17.11: unknown, revoked (by a reused code, 17.6) and disabled-account
// tokens are inactive, and the answer says nothing more.
TEST(OidcIntrospectionEndpoint, Interface_17_11_RevokedUnknownAndDisabledAreInactive) {
  AuthdProcess authd(oidc_args());
  std::string cookie = signed_in(authd);
  nlohmann::json web = register_client(authd);
  nlohmann::json api = resource_server(authd);
  EXPECT_EQ(answer_for(authd, api, "authdat_unknown"), kInactive);
  Pkce pkce;
  std::string code = code_for(authd, web, cookie, pkce);
  std::string reused = exchange_code(authd, web, code, pkce).json()["access_token"];
  EXPECT_EQ(answer_for(authd, api, reused)["active"], true);
  EXPECT_EQ(exchange_code(authd, web, code, pkce).status, 400);
  EXPECT_EQ(answer_for(authd, api, reused), kInactive);

  Pkce again;
  std::string access =
      exchange_code(authd, web, code_for(authd, web, cookie, again), again).json()["access_token"];
  nlohmann::json active = answer_for(authd, api, access);
  ASSERT_EQ(active["active"], true);
  std::string key = admin::create_key(authd, "introspection-tests");
  HttpResponse disabled =
      admin::call(authd, key, "PATCH", "/admin/users/" + active["sub"].get<std::string>(),
                  nlohmann::json{{"disabled", true}});
  ASSERT_EQ(disabled.status, 200) << disabled.body;
  EXPECT_EQ(answer_for(authd, api, access), kInactive);
}

// 17.11: a token bound to a resource (RFC 8707) is foreign to every client
// but its own: inactive for them, active for its client.
TEST(OidcIntrospectionEndpoint, Interface_17_11_ForeignResourceTokenIsInactive) {
  AuthdProcess authd(oidc_args());
  nlohmann::json api = resource_server(authd);
  nlohmann::json other = resource_server(authd);
  std::string bound = client_token(authd, api, {{"resource", "https://reports.example.com/"}});
  std::string unbound = client_token(authd, api);
  EXPECT_EQ(answer_for(authd, other, bound), kInactive);
  nlohmann::json own = answer_for(authd, api, bound);
  EXPECT_EQ(own["active"], true) << own.dump();
  EXPECT_EQ(own["aud"], "https://reports.example.com/");
  EXPECT_EQ(answer_for(authd, other, unbound)["active"], true);
}

// 17.11: only a client registered with introspection: true may call it
// (403 unauthorized_client, whatever the token); the caller authenticates
// as at the token endpoint (401 invalid_client, recorded); the token is
// required.
TEST(OidcIntrospectionEndpoint, Interface_17_11_CallerMustAuthenticateAndBeAllowed) {
  AuthdProcess authd(oidc_args());
  nlohmann::json api = resource_server(authd);
  nlohmann::json plain = register_client(
      authd, {{"grantTypes", {"client_credentials"}}, {"scopes", nlohmann::json::array()}});
  std::string token = client_token(authd, plain);
  for (const std::string& t : {token, std::string("authdat_unknown")}) {
    HttpResponse refused = introspect(authd, plain, {{"token", t}});
    EXPECT_EQ(refused.status, 403) << refused.body;
    EXPECT_EQ(refused.json()["error"], "unauthorized_client");
  }
  nlohmann::json wrong = api;
  wrong["clientSecret"] = "authdcs_wrong";
  HttpResponse unauthenticated = introspect(authd, wrong, {{"token", token}});
  EXPECT_EQ(unauthenticated.status, 401) << unauthenticated.body;
  EXPECT_EQ(unauthenticated.json()["error"], "invalid_client");
  EXPECT_EQ(unauthenticated.header("WWW-Authenticate"), "Basic realm=\"authd\"");
  EXPECT_EQ(events_of_type(authd, "oauth.client_auth_failed").size(), 1u);
  HttpResponse post = send_request(authd.port(), "POST", "/oauth2/introspect",
                                   {{"Content-Type", "application/x-www-form-urlencoded"}},
                                   form_encoded({{"token", token},
                                                 {"client_id", api["clientId"]},
                                                 {"client_secret", api["clientSecret"]}}));
  EXPECT_EQ(post.status, 200) << post.body;
  EXPECT_EQ(post.json()["active"], true);
  // An empty value is no value (RFC 6749 3.1).
  for (const Form& form : {Form{}, Form{{"token", ""}}}) {
    HttpResponse missing = introspect(authd, api, form);
    EXPECT_EQ(missing.status, 400);
    EXPECT_EQ(missing.json()["error"], "invalid_request");
  }
  HttpResponse twice = introspect(authd, api, {{"token", token}, {"token", token}});
  EXPECT_EQ(twice.status, 400);
}

// 17.2: discovery names the endpoint and its authentication methods.
TEST(OidcIntrospectionEndpoint, Interface_17_2_DiscoveryNamesTheIntrospectionEndpoint) {
  AuthdProcess authd(oidc_args());
  nlohmann::json meta =
      send_request(authd.port(), "GET", "/.well-known/oauth-authorization-server").json();
  EXPECT_EQ(meta["introspection_endpoint"], kIssuer + "/oauth2/introspect");
  EXPECT_EQ(meta["introspection_endpoint_auth_methods_supported"],
            (std::vector<std::string>{"client_secret_basic", "client_secret_post"}));
}

// 17.9, 17.11: a JWT access token is introspected as the opaque one it
// stands for (its jti's digest), a user's and a machine's alike; an
// altered one is no token of authd's.
TEST(OidcIntrospectionEndpoint, Interface_17_11_JwtAccessTokensAreIntrospected) {
  AuthdProcess authd(oidc_args());
  std::string cookie = signed_in(authd);
  nlohmann::json web = register_client(authd, {{"accessTokenFormat", "jwt"}});
  nlohmann::json api = register_client(authd, {{"grantTypes", {"client_credentials"}},
                                               {"scopes", nlohmann::json::array()},
                                               {"introspection", true},
                                               {"accessTokenFormat", "jwt"}});
  Pkce pkce;
  std::string user_jwt =
      exchange_code(authd, web, code_for(authd, web, cookie, pkce), pkce).json()["access_token"];
  ASSERT_EQ(std::count(user_jwt.begin(), user_jwt.end(), '.'), 2) << "a JWT";
  nlohmann::json a = answer_for(authd, api, user_jwt);
  EXPECT_EQ(a["active"], true) << a.dump();
  EXPECT_EQ(a["client_id"], web["clientId"]);
  EXPECT_EQ(a["sub"], jwt_payload(user_jwt)["sub"]);

  std::string machine_jwt = client_token(authd, api);
  ASSERT_EQ(std::count(machine_jwt.begin(), machine_jwt.end(), '.'), 2) << "a JWT";
  EXPECT_EQ(jwt_payload(machine_jwt)["sub"], api["clientId"]) << "17.7: sub is the client";
  nlohmann::json m = answer_for(authd, api, machine_jwt);
  EXPECT_EQ(m["active"], true) << m.dump();
  EXPECT_EQ(m["sub"], api["clientId"]);

  std::string altered = user_jwt;
  altered[altered.size() - 5] = altered[altered.size() - 5] == 'A' ? 'B' : 'A';
  EXPECT_EQ(answer_for(authd, api, altered), kInactive);
}

}  // namespace
}  // namespace authd::test
