// interface.md 17.11 (RFC 7662): the introspection answer for each kind of
// token, given what the store holds: active with its members, or
// {"active": false} and nothing else (expired, used, disabled account,
// foreign to the caller).
#include <gtest/gtest.h>

#include "auth/oidc/introspection.hpp"

namespace authd {
namespace {

const std::string kIssuer = "https://id.example.com";
constexpr Millis kNow = 5'000'000;

OAuthClientRecord caller_named(const std::string& id) {
  OAuthClientRecord c;
  c.id = id;
  c.confidential = true;
  c.introspection = true;
  return c;
}

AccessTokenUser user_token(const std::string& client_id, const std::string& resource = "") {
  AccessTokenUser found;
  found.token.client_id = client_id;
  found.token.user_id = "user-1";
  found.token.scope = "openid email";
  found.token.created_at = 4'000'500;
  found.token.expires_at = 5'600'900;
  found.token.resource = resource;
  found.user.id = "user-1";
  return found;
}

RefreshTokenRecord refresh_of(const std::string& client_id) {
  RefreshTokenRecord r;
  r.client_id = client_id;
  r.user_id = "user-1";
  r.scope = "openid offline_access";
  r.created_at = 4'000'000;
  r.expires_at = 9'000'000;
  r.family_expires_at = 20'000'000;
  return r;
}

TEST(OidcIntrospection, Interface_17_11_MayIntrospectNeedsConfidentialAndTheFlag) {
  OAuthClientRecord c = caller_named("a");
  EXPECT_TRUE(may_introspect(c));
  c.introspection = false;
  EXPECT_FALSE(may_introspect(c));
  c = caller_named("a");
  c.confidential = false;
  EXPECT_FALSE(may_introspect(c));
}

// RFC 7662 2.2: the members of an active user access token; aud is the
// issuer when the token names no resource; times in seconds.
TEST(OidcIntrospection, Interface_17_11_ActiveUserAccessTokenAnswer) {
  nlohmann::json a =
      user_access_token_answer(user_token("web"), caller_named("api"), kIssuer, kNow);
  EXPECT_EQ(a, (nlohmann::json{{"active", true},
                               {"scope", "openid email"},
                               {"client_id", "web"},
                               {"sub", "user-1"},
                               {"exp", 5'600},
                               {"iat", 4'000},
                               {"iss", kIssuer},
                               {"aud", kIssuer},
                               {"token_type", "Bearer"}}));
}

// Inactive, and nothing else: expired, a disabled account, and a token
// bound to a resource introspected by another client than its own.
TEST(OidcIntrospection, Interface_17_11_InactiveUserAccessTokens) {
  const nlohmann::json inactive = {{"active", false}};
  AccessTokenUser expired = user_token("web");
  expired.token.expires_at = kNow;
  EXPECT_EQ(user_access_token_answer(expired, caller_named("web"), kIssuer, kNow), inactive);
  AccessTokenUser disabled = user_token("web");
  disabled.user.disabled = true;
  EXPECT_EQ(user_access_token_answer(disabled, caller_named("web"), kIssuer, kNow), inactive);
  AccessTokenUser bound = user_token("web", "https://api.example.com");
  EXPECT_EQ(user_access_token_answer(bound, caller_named("other"), kIssuer, kNow), inactive);
  nlohmann::json own = user_access_token_answer(bound, caller_named("web"), kIssuer, kNow);
  EXPECT_EQ(own["active"], true);
  EXPECT_EQ(own["aud"], "https://api.example.com");
}

// 17.7: a client's token: sub is the client, no scope when none granted;
// foreign when bound to a resource and asked by another client.
TEST(OidcIntrospection, Interface_17_11_ClientTokenAnswers) {
  ClientTokenRecord t{{}, "machine", "", "", 4'000'000, 4'600'000};
  nlohmann::json a = client_token_answer(t, caller_named("api"), kIssuer, 4'100'000);
  EXPECT_EQ(a["active"], true);
  EXPECT_EQ(a["sub"], "machine");
  EXPECT_EQ(a["client_id"], "machine");
  EXPECT_EQ(a["aud"], kIssuer);
  EXPECT_FALSE(a.contains("scope"));
  EXPECT_EQ(client_token_answer(t, caller_named("api"), kIssuer, 4'600'000),
            (nlohmann::json{{"active", false}}));
  t.resource = "urn:example:reports";
  EXPECT_EQ(client_token_answer(t, caller_named("api"), kIssuer, 4'100'000),
            (nlohmann::json{{"active", false}}));
  EXPECT_EQ(client_token_answer(t, caller_named("machine"), kIssuer, 4'100'000)["aud"],
            "urn:example:reports");
}

// 17.10: a refresh token is active for its own client only, until used,
// idle-expired or family-expired, and while its account is usable.
TEST(OidcIntrospection, Interface_17_11_RefreshTokenAnswers) {
  const nlohmann::json inactive = {{"active", false}};
  RefreshTokenRecord r = refresh_of("web");
  nlohmann::json a = refresh_token_answer(r, true, caller_named("web"), kIssuer, kNow);
  EXPECT_EQ(a["active"], true);
  EXPECT_EQ(a["token_type"], "refresh_token");
  EXPECT_EQ(a["exp"], 9'000);
  EXPECT_EQ(a["sub"], "user-1");
  EXPECT_EQ(refresh_token_answer(r, true, caller_named("other"), kIssuer, kNow), inactive);
  EXPECT_EQ(refresh_token_answer(r, false, caller_named("web"), kIssuer, kNow), inactive);
  RefreshTokenRecord used = r;
  used.used_at = 4'500'000;
  EXPECT_EQ(refresh_token_answer(used, true, caller_named("web"), kIssuer, kNow), inactive);
  EXPECT_EQ(refresh_token_answer(r, true, caller_named("web"), kIssuer, 9'000'000), inactive);
  RefreshTokenRecord family_over = r;
  family_over.family_expires_at = kNow;
  EXPECT_EQ(refresh_token_answer(family_over, true, caller_named("web"), kIssuer, kNow), inactive);
}

}  // namespace
}  // namespace authd
