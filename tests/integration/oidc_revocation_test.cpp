// interface.md 17.10 (account events end OAuth tokens), 17.11 (POST
// /oauth2/revoke, RFC 7009), end to end over real HTTP on SQLite and
// PostgreSQL.
#include <algorithm>
#include <regex>

#include "oidc_support.hpp"
#include "passkey_support.hpp"

namespace authd::test::revocation_tests {
namespace {

std::string basic(const nlohmann::json& client) {
  std::string pair =
      client["clientId"].get<std::string>() + ":" + client.value("clientSecret", std::string());
  char encoded[512];
  sodium_bin2base64(encoded, sizeof encoded, reinterpret_cast<const unsigned char*>(pair.data()),
                    pair.size(), sodium_base64_VARIANT_ORIGINAL);
  return std::string("Basic ") + encoded;
}

HttpResponse revoke(const AuthdProcess& authd, const nlohmann::json& client,
                    const std::vector<std::pair<std::string, std::string>>& form) {
  return send_request(
      authd.port(), "POST", "/oauth2/revoke",
      {{"Content-Type", "application/x-www-form-urlencoded"}, {"Authorization", basic(client)}},
      form_encoded(form));
}

// The user's tokens before `event`, dead after it (refresh: invalid_grant;
// access: 401 at userinfo).
template <class Event>
void expect_event_ends_tokens(const std::vector<std::string>& more_args, Event&& event) {
  AuthdProcess authd(oidc_args(more_args));
  std::string cookie = signed_in(authd);
  nlohmann::json client = register_client(authd);
  nlohmann::json tokens = offline_tokens(authd, client, cookie);
  ASSERT_EQ(userinfo_status(authd, tokens["access_token"]), 200);
  std::string key = admin::create_key(authd, "ops", "write");
  std::string user_id = show_user(authd, kEmail)["id"];
  event(authd, key, user_id, cookie);
  EXPECT_EQ(userinfo_status(authd, tokens["access_token"]), 401);
  HttpResponse res = refresh(authd, client, tokens["refresh_token"]);
  EXPECT_EQ(res.status, 400) << res.body;
  EXPECT_EQ(res.json().value("error", ""), "invalid_grant");
}

// ---- 17.10 account events -----------------------------------------------------

TEST(OidcRevocation, Interface_17_10_PasswordChangeEndsRefreshAndAccessTokens) {
  expect_event_ends_tokens({}, [](const AuthdProcess& authd, const std::string&, const std::string&,
                                  const std::string& cookie) {
    nlohmann::json body = {{"currentPassword", kPassword}, {"newPassword", kNewPassword}};
    ASSERT_EQ(
        post_json(authd.port(), "/password", body.dump(), {{"Authorization", "Bearer " + cookie}})
            .status,
        200);
  });
}

TEST(OidcRevocation, Interface_17_10_PasswordResetEndsRefreshAndAccessTokens) {
  expect_event_ends_tokens({"--reset-mail-delay", "1ms"}, [](const AuthdProcess& authd,
                                                             const std::string&, const std::string&,
                                                             const std::string&) {
    ASSERT_EQ(post_json(authd.port(), "/forgot", forgot_body(kEmail)).status, 200);
    std::vector<std::string> mails = authd.wait_for_mails(1);
    ASSERT_EQ(mails.size(), 1u);
    // The link names the issuer (--public-url), not reset_token_in's host.
    std::smatch link;
    ASSERT_TRUE(std::regex_search(mails[0], link, std::regex(R"(/reset#token=([A-Za-z0-9_-]+))")));
    HttpResponse reset = post_json(authd.port(), "/reset", reset_body(link[1].str(), kNewPassword));
    ASSERT_EQ(reset.status, 200) << reset.body;
  });
}

TEST(OidcRevocation, Interface_17_10_AdminPasswordSetEndsRefreshAndAccessTokens) {
  expect_event_ends_tokens({}, [](const AuthdProcess& authd, const std::string& key,
                                  const std::string& user_id, const std::string&) {
    HttpResponse res = admin::call(authd, key, "PUT", "/admin/users/" + user_id + "/password",
                                   nlohmann::json{{"password", kNewPassword}});
    ASSERT_EQ(res.status, 200) << res.body;
  });
}

TEST(OidcRevocation, Interface_17_10_DisablingEndsRefreshAndAccessTokens) {
  expect_event_ends_tokens({}, [](const AuthdProcess& authd, const std::string& key,
                                  const std::string& user_id, const std::string&) {
    HttpResponse res = admin::call(authd, key, "PATCH", "/admin/users/" + user_id,
                                   nlohmann::json{{"disabled", true}});
    ASSERT_EQ(res.status, 200) << res.body;
  });
}

TEST(OidcRevocation, Interface_17_10_CliDisableEndsRefreshAndAccessTokens) {
  expect_event_ends_tokens({}, [](const AuthdProcess& authd, const std::string&, const std::string&,
                                  const std::string&) {
    ASSERT_EQ(authd.cli({"user", "disable", "--email", kEmail}), 0);
  });
}

TEST(OidcRevocation, Interface_10_4_13_ErasureEndsRefreshAndAccessTokens) {
  expect_event_ends_tokens({}, [](const AuthdProcess& authd, const std::string& key,
                                  const std::string& user_id, const std::string&) {
    ASSERT_EQ(admin::call(authd, key, "DELETE", "/admin/users/" + user_id).status, 204);
  });
}

// 17.5, 17.10: withdrawing a consent ends that client's refresh tokens for
// the user, and not another client's.
TEST(OidcRevocation, Interface_17_10_WithdrawnConsentEndsTheClientsRefreshTokens) {
  AuthdProcess authd(oidc_args());
  std::string cookie = signed_in(authd);
  nlohmann::json third = register_client(authd, {{"firstParty", false}});
  nlohmann::json first_party = register_client(authd);
  Pkce pkce;
  HttpResponse res = authorize(authd, code_request(third["clientId"], pkce, kOffline), cookie);
  std::string id = location_parameters(res)["request"];
  HttpResponse allowed = send_request(authd.port(), "POST", "/oauth2/consent",
                                      {{"Content-Type", "application/x-www-form-urlencoded"},
                                       {"Cookie", "authd_session=" + cookie},
                                       {"Origin", kIssuer}},
                                      "request=" + id + "&decision=allow");
  ASSERT_EQ(allowed.status, 302) << allowed.body;
  HttpResponse exchanged = exchange_code(authd, third, location_parameters(allowed)["code"], pkce);
  ASSERT_EQ(exchanged.status, 200) << exchanged.body;
  std::string third_refresh = exchanged.json()["refresh_token"];
  std::string kept = offline_tokens(authd, first_party, cookie)["refresh_token"];
  HttpResponse withdrawn =
      send_request(authd.port(), "DELETE", "/consents/" + third["clientId"].get<std::string>(),
                   {{"Authorization", "Bearer " + cookie}});
  ASSERT_EQ(withdrawn.status, 204) << withdrawn.body;
  EXPECT_EQ(refresh(authd, third, third_refresh).status, 400);
  EXPECT_EQ(refresh(authd, first_party, kept).status, 200);
}

// ---- 17.11 POST /oauth2/revoke ------------------------------------------------

// A refresh token takes its family and the family's access tokens with it;
// the answer is 200 with no body; oauth.token_revoked is recorded.
TEST(OidcRevocation, Interface_17_11_RevokingARefreshTokenEndsItsFamily) {
  AuthdProcess authd(oidc_args());
  std::string cookie = signed_in(authd);
  nlohmann::json client = register_client(authd);
  nlohmann::json tokens = offline_tokens(authd, client, cookie);
  nlohmann::json other = offline_tokens(authd, client, cookie);
  HttpResponse res = revoke(authd, client, {{"token", tokens["refresh_token"]}});
  EXPECT_EQ(res.status, 200) << res.body;
  EXPECT_EQ(res.body, "");
  EXPECT_EQ(res.header("Cache-Control"), "no-store");
  EXPECT_EQ(refresh(authd, client, tokens["refresh_token"]).status, 400);
  EXPECT_EQ(userinfo_status(authd, tokens["access_token"]), 401);
  EXPECT_EQ(userinfo_status(authd, other["access_token"]), 200);
  std::vector<nlohmann::json> events = events_of_type(authd, "oauth.token_revoked");
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0]["detail"]["tokenType"], "refresh_token");
  EXPECT_EQ(events[0]["detail"]["revokedTokens"], 2);
  // RFC 7009 2.2: an already revoked token is no error.
  EXPECT_EQ(revoke(authd, client, {{"token", tokens["refresh_token"]}}).status, 200);
  EXPECT_EQ(events_of_type(authd, "oauth.token_revoked").size(), 1u);
}

// An access token ends alone; the hint is only a hint, an unknown one is
// ignored; an unknown token is 200.
TEST(OidcRevocation, Interface_17_11_RevokingAnAccessTokenEndsOnlyIt) {
  AuthdProcess authd(oidc_args());
  std::string cookie = signed_in(authd);
  nlohmann::json client = register_client(authd);
  nlohmann::json tokens = offline_tokens(authd, client, cookie);
  HttpResponse res = revoke(
      authd, client, {{"token", tokens["access_token"]}, {"token_type_hint", "refresh_token"}});
  EXPECT_EQ(res.status, 200) << res.body;
  EXPECT_EQ(userinfo_status(authd, tokens["access_token"]), 401);
  EXPECT_EQ(refresh(authd, client, tokens["refresh_token"]).status, 200);
  EXPECT_EQ(
      revoke(authd, client, {{"token", "authdat_unknown"}, {"token_type_hint", "odd"}}).status,
      200);
}

// RFC 7009 2.1: another client's live token is refused and stays good;
// the request needs client authentication and a token.
TEST(OidcRevocation, Interface_17_11_ClientsRevokeOnlyTheirOwnTokens) {
  AuthdProcess authd(oidc_args());
  std::string cookie = signed_in(authd);
  nlohmann::json client = register_client(authd);
  nlohmann::json other = register_client(authd);
  nlohmann::json tokens = offline_tokens(authd, client, cookie);
  for (const char* kind : {"access_token", "refresh_token"}) {
    HttpResponse res = revoke(authd, other, {{"token", tokens[kind]}});
    EXPECT_EQ(res.status, 400) << kind << ": " << res.body;
    EXPECT_EQ(res.json()["error"], "unauthorized_client") << kind;
  }
  EXPECT_EQ(userinfo_status(authd, tokens["access_token"]), 200);
  nlohmann::json wrong = client;
  wrong["clientSecret"] = "not the secret";
  HttpResponse unauthenticated = revoke(authd, wrong, {{"token", tokens["access_token"]}});
  EXPECT_EQ(unauthenticated.status, 401);
  EXPECT_EQ(unauthenticated.json()["error"], "invalid_client");
  EXPECT_EQ(unauthenticated.header("WWW-Authenticate"), "Basic realm=\"authd\"");
  HttpResponse no_token = revoke(authd, client, {});
  EXPECT_EQ(no_token.status, 400);
  EXPECT_EQ(no_token.json()["error"], "invalid_request");
  EXPECT_EQ(userinfo_status(authd, tokens["access_token"]), 200);
  EXPECT_EQ(refresh(authd, client, tokens["refresh_token"]).status, 200);
}

// 17.2: discovery names the revocation endpoint and the refresh grant.
TEST(OidcRevocation, Interface_17_2_DiscoveryListsRevocationAndRefresh) {
  AuthdProcess authd(oidc_args());
  nlohmann::json metadata = browser_get(authd, "/.well-known/openid-configuration").json();
  EXPECT_EQ(metadata["revocation_endpoint"], kIssuer + "/oauth2/revoke");
  EXPECT_EQ(metadata["revocation_endpoint_auth_methods_supported"],
            metadata["token_endpoint_auth_methods_supported"]);
  EXPECT_EQ(metadata["grant_types_supported"],
            nlohmann::json::array({"authorization_code", "refresh_token", "client_credentials"}));
  EXPECT_NE(std::find(metadata["scopes_supported"].begin(), metadata["scopes_supported"].end(),
                      "offline_access"),
            metadata["scopes_supported"].end());
}

// 17.9, 17.10, 17.11: a client registered for JWT access tokens gets a
// JWT from a refresh too; revoking a JWT access token ends it at authd
// (found by its jti), and an altered JWT is no token: 200, nothing done.
TEST(OidcRevocation, Interface_17_11_JwtAccessTokensAreRevokedByTheirJti) {
  AuthdProcess authd(oidc_args());
  std::string cookie = signed_in(authd);
  nlohmann::json client = register_client(authd, {{"accessTokenFormat", "jwt"}});
  nlohmann::json first = offline_tokens(authd, client, cookie);
  HttpResponse next = refresh(authd, client, first["refresh_token"]);
  ASSERT_EQ(next.status, 200) << next.body;
  std::string jwt = next.json()["access_token"];
  ASSERT_EQ(std::count(jwt.begin(), jwt.end(), '.'), 2) << "a JWT from the refresh";
  EXPECT_EQ(jwt_payload(jwt)["client_id"], client["clientId"]);
  ASSERT_EQ(userinfo_status(authd, jwt), 200);
  std::string altered = jwt;
  altered[altered.size() - 5] = altered[altered.size() - 5] == 'A' ? 'B' : 'A';
  EXPECT_EQ(revoke(authd, client, {{"token", altered}}).status, 200);
  EXPECT_EQ(userinfo_status(authd, jwt), 200) << "an altered JWT revokes nothing";
  EXPECT_EQ(revoke(authd, client, {{"token", jwt}}).status, 200);
  EXPECT_EQ(userinfo_status(authd, jwt), 401);
}

// 17.7, 17.11: a client_credentials token is its client's to revoke;
// another client's attempt is refused and leaves it live.
TEST(OidcRevocation, Interface_17_11_ClientCredentialsTokensAreRevocable) {
  AuthdProcess authd(oidc_args());
  nlohmann::json machine = register_client(
      authd, {{"grantTypes", {"client_credentials"}}, {"scopes", nlohmann::json::array()}});
  nlohmann::json api = register_client(authd, {{"grantTypes", {"client_credentials"}},
                                               {"scopes", nlohmann::json::array()},
                                               {"introspection", true}});
  HttpResponse issued = token_request(authd, {{"grant_type", "client_credentials"}},
                                      machine["clientId"], machine["clientSecret"]);
  ASSERT_EQ(issued.status, 200) << issued.body;
  std::string token = issued.json()["access_token"];
  auto active = [&] {
    HttpResponse res = send_request(
        authd.port(), "POST", "/oauth2/introspect",
        {{"Content-Type", "application/x-www-form-urlencoded"}, {"Authorization", basic(api)}},
        form_encoded({{"token", token}}));
    return res.json()["active"].get<bool>();
  };
  ASSERT_TRUE(active());
  HttpResponse foreign = revoke(authd, api, {{"token", token}});
  EXPECT_EQ(foreign.status, 400) << foreign.body;
  EXPECT_EQ(foreign.json()["error"], "unauthorized_client");
  EXPECT_TRUE(active());
  EXPECT_EQ(revoke(authd, machine, {{"token", token}}).status, 200);
  EXPECT_FALSE(active());
}

// 17.10, 17.11: a refresh token is introspected as active by its own
// client (registered for introspection) and is foreign to any other.
TEST(OidcRevocation, Interface_17_11_RefreshTokensAreIntrospectedByTheirClientOnly) {
  AuthdProcess authd(oidc_args());
  std::string cookie = signed_in(authd);
  nlohmann::json client = register_client(authd, {{"introspection", true}});
  nlohmann::json other = register_client(authd, {{"introspection", true}});
  nlohmann::json tokens = offline_tokens(authd, client, cookie);
  auto introspect = [&](const nlohmann::json& caller, const std::string& token) {
    HttpResponse res = send_request(
        authd.port(), "POST", "/oauth2/introspect",
        {{"Content-Type", "application/x-www-form-urlencoded"}, {"Authorization", basic(caller)}},
        form_encoded({{"token", token}}));
    EXPECT_EQ(res.status, 200) << res.body;
    return res.json();
  };
  nlohmann::json own = introspect(client, tokens["refresh_token"]);
  EXPECT_EQ(own["active"], true) << own.dump();
  EXPECT_EQ(own["token_type"], "refresh_token");
  EXPECT_EQ(own["client_id"], client["clientId"]);
  EXPECT_EQ(introspect(other, tokens["refresh_token"]), nlohmann::json({{"active", false}}));
  ASSERT_EQ(refresh(authd, client, tokens["refresh_token"]).status, 200);
  EXPECT_EQ(introspect(client, tokens["refresh_token"]), nlohmann::json({{"active", false}}))
      << "a rotated token is no longer active";
}

// A JWT access token's jti is an identifier that every resource server sees
// and may log (RFC 9068 2.2), not a secret. Presented alone, it is neither
// an opaque token of authd's (no authdat_ prefix, 17.9) nor a verified JWT:
// userinfo refuses it, revoking it revokes nothing, and introspection
// answers it inactive.
TEST(OidcRevocationEndpoint, Interface_17_9_JwtIdAloneIsNoAccessToken) {
  AuthdProcess authd(oidc_args());
  std::string cookie = signed_in(authd);
  nlohmann::json client =
      register_client(authd, {{"accessTokenFormat", "jwt"}, {"introspection", true}});
  nlohmann::json tokens = offline_tokens(authd, client, cookie);
  std::string token = tokens["access_token"];
  std::string jti = jwt_payload(token)["jti"];
  ASSERT_FALSE(jti.empty());
  EXPECT_EQ(userinfo_status(authd, jti), 401);
  HttpResponse introspected = send_request(
      authd.port(), "POST", "/oauth2/introspect",
      {{"Content-Type", "application/x-www-form-urlencoded"}, {"Authorization", basic(client)}},
      form_encoded({{"token", jti}}));
  ASSERT_EQ(introspected.status, 200) << introspected.body;
  EXPECT_EQ(introspected.json(), nlohmann::json({{"active", false}}));
  EXPECT_EQ(revoke(authd, client, {{"token", jti}}).status, 200);
  EXPECT_EQ(userinfo_status(authd, token), 200);
}

}  // namespace
}  // namespace authd::test::revocation_tests
