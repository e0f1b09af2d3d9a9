// interface.md 17.2 and 17.12: the provider's discovery documents and its
// signing keys over real HTTP, on SQLite and on PostgreSQL: the metadata
// lists what is served under the issuer's own path, the JWKS a pair of
// keys (RS256 and ES256) with their public members only, kept across a
// restart and shared by every instance, `authd oidc rotate-keys`
// publishing the next pair and --now retiring the current one, and the
// private parts sealed at rest. The signatures themselves are checked by
// python3-jwcrypto in tests/unit/oidc_signing_keys*_test.cpp.
#include <algorithm>
#include <chrono>
#include <functional>
#include <set>
#include <sstream>
#include <thread>

#include <gtest/gtest.h>

#include "harness.hpp"

namespace authd::test {
namespace {

const std::string kKeysIssuer = "http://127.0.0.1/idp";

// Not oidc_support.hpp's oidc_args (another issuer): named apart, since a unity
// build may compile both into one file.
std::vector<std::string> keys_oidc_args(std::vector<std::string> more = {}) {
  std::vector<std::string> args = fast_hashing();
  args.insert(args.end(), {"--oidc", "on", "--public-url", kKeysIssuer});
  args.insert(args.end(), more.begin(), more.end());
  return args;
}

nlohmann::json jwks(const AuthdProcess& authd) {
  HttpResponse response = send_request(authd.port(), "GET", "/oauth2/jwks");
  EXPECT_EQ(response.status, 200);
  EXPECT_EQ(response.header("cache-control"), "public, max-age=300");
  return response.json()["keys"];
}

std::set<std::string> kids(const nlohmann::json& keys) {
  std::set<std::string> out;
  for (const nlohmann::json& key : keys) out.insert(key["kid"].get<std::string>());
  return out;
}

// `authd oidc rotate-keys` on the server's database and secret key: the
// kids it made.
std::vector<std::string> rotate(const AuthdProcess& authd, bool now) {
  std::vector<std::string> args = {"oidc", "rotate-keys"};
  if (now) args.push_back("--now");
  if (on_postgres()) args.insert(args.end(), {"--secret-key-file", postgres_secret_key_file()});
  std::string out;
  std::string err;
  EXPECT_EQ(authd.cli_streams(args, "", &out, &err), 0) << err;
  nlohmann::json printed = nlohmann::json::parse(out, nullptr, false);
  if (!printed.is_object()) {
    ADD_FAILURE() << out;
    return {};
  }
  return printed["kids"].get<std::vector<std::string>>();
}

// Each instance reads the keys again every 30 s (SigningKeys::kRefreshInterval).
bool within_a_refresh(const std::function<bool()>& ready) {
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(45);
  while (std::chrono::steady_clock::now() < deadline) {
    if (ready()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  return ready();
}

TEST(OidcDiscovery, Interface_17_2_oidcc_discovery_ListsWhatIsServedUnderTheIssuer) {
  AuthdProcess authd(keys_oidc_args());
  HttpResponse openid = send_request(authd.port(), "GET", "/.well-known/openid-configuration");
  HttpResponse oauth = send_request(authd.port(), "GET", "/.well-known/oauth-authorization-server");
  ASSERT_EQ(openid.status, 200) << openid.body;
  ASSERT_EQ(oauth.status, 200) << oauth.body;
  EXPECT_EQ(openid.header("cache-control"), "public, max-age=300");
  EXPECT_EQ(oauth.header("cache-control"), "public, max-age=300");
  EXPECT_EQ(openid.header("content-type"), "application/json");
  nlohmann::json meta = openid.json();
  EXPECT_EQ(oauth.json(), meta);  // RFC 8414: the same metadata

  EXPECT_EQ(meta["issuer"], kKeysIssuer);  // --public-url exactly, its path included
  EXPECT_EQ(meta["authorization_endpoint"], kKeysIssuer + "/oauth2/authorize");
  EXPECT_EQ(meta["token_endpoint"], kKeysIssuer + "/oauth2/token");
  EXPECT_EQ(meta["userinfo_endpoint"], kKeysIssuer + "/oauth2/userinfo");
  EXPECT_EQ(meta["jwks_uri"], kKeysIssuer + "/oauth2/jwks");
  using L = std::vector<std::string>;
  EXPECT_EQ(meta["revocation_endpoint"], kKeysIssuer + "/oauth2/revoke");
  EXPECT_EQ(meta["scopes_supported"], (L{"openid", "profile", "email", "phone", "offline_access"}));
  EXPECT_EQ(meta["response_types_supported"], L{"code"});
  EXPECT_EQ(meta["response_modes_supported"], L{"query"});
  EXPECT_EQ(meta["grant_types_supported"],
            (L{"authorization_code", "refresh_token", "client_credentials"}));
  EXPECT_EQ(meta["subject_types_supported"], L{"public"});
  EXPECT_EQ(meta["id_token_signing_alg_values_supported"], (L{"RS256", "ES256"}));
  EXPECT_EQ(meta["token_endpoint_auth_methods_supported"],
            (L{"client_secret_basic", "client_secret_post", "none"}));
  EXPECT_EQ(meta["revocation_endpoint_auth_methods_supported"],
            (L{"client_secret_basic", "client_secret_post", "none"}));
  EXPECT_EQ(meta["code_challenge_methods_supported"], L{"S256"});
  EXPECT_EQ(meta["prompt_values_supported"], (L{"none", "login", "consent", "select_account"}));
  for (const char* claim :
       {"sub", "iss", "aud", "exp", "iat", "auth_time", "nonce", "azp", "sid", "amr", "email",
        "email_verified", "name", "picture", "updated_at", "phone_number", "phone_number_verified"})
    EXPECT_NE(std::find(meta["claims_supported"].begin(), meta["claims_supported"].end(), claim),
              meta["claims_supported"].end())
        << claim;
  EXPECT_EQ(meta["authorization_response_iss_parameter_supported"], true);
  EXPECT_EQ(meta["request_parameter_supported"], false);
  EXPECT_EQ(meta["request_uri_parameter_supported"], false);
  EXPECT_EQ(meta["claims_parameter_supported"], false);
  EXPECT_FALSE(meta.contains("userinfo_signing_alg_values_supported"));
  EXPECT_FALSE(meta.contains("acr_values_supported"));
}

TEST(OidcDiscovery, Interface_17_2_WithOidcOffOrOnTheManagementListenerTheRoutesAreUnknown) {
  AuthdProcess off(fast_hashing());
  for (const char* path : {"/oauth2/jwks", "/.well-known/openid-configuration",
                           "/.well-known/oauth-authorization-server"})
    EXPECT_EQ(send_request(off.port(), "GET", path).status, 404) << path;

  AuthdProcess on(keys_oidc_args());
  ASSERT_NE(on.admin_port(), 0);
  EXPECT_EQ(send_request(on.admin_port(), "GET", "/oauth2/jwks").status, 404);
  EXPECT_EQ(send_request(on.admin_port(), "GET", "/.well-known/openid-configuration").status, 404);
  HttpResponse post = send_request(on.port(), "POST", "/oauth2/jwks");
  EXPECT_EQ(post.status, 405);
  EXPECT_EQ(post.header("allow"), "GET");
}

TEST(OidcKeys, Interface_17_12_JwksListsOneRs256AndOneEs256KeyPublicPartsOnly) {
  AuthdProcess authd(keys_oidc_args());
  nlohmann::json keys = jwks(authd);
  ASSERT_EQ(keys.size(), 2u) << keys.dump();
  EXPECT_EQ(kids(keys).size(), 2u);  // distinct
  std::multiset<std::string> algs;
  for (const nlohmann::json& key : keys) {
    algs.insert(key["alg"].get<std::string>());
    EXPECT_EQ(key["use"], "sig");
    EXPECT_EQ(key["kid"].get<std::string>().size(), 22u);  // 16 bytes, base64url
    for (const char* secret : {"d", "p", "q", "dp", "dq", "qi", "k"})
      EXPECT_FALSE(key.contains(secret)) << secret;
    if (key["alg"] == "RS256") {
      EXPECT_EQ(key["kty"], "RSA");
      EXPECT_TRUE(key.contains("n") && key.contains("e"));
    } else {
      EXPECT_EQ(key["kty"], "EC");
      EXPECT_EQ(key["crv"], "P-256");
      EXPECT_TRUE(key.contains("x") && key.contains("y"));
    }
  }
  EXPECT_EQ(algs, (std::multiset<std::string>{"ES256", "RS256"}));

  // Stored, not made anew: the same keys after a restart.
  ASSERT_EQ(authd.stop(), 0);
  authd.start();
  EXPECT_EQ(kids(jwks(authd)), kids(keys));
}

TEST(OidcKeys, Interface_17_12_PrivatePartsAreSealedAtRestAndNeverLogged) {
  AuthdProcess authd(keys_oidc_args());
  std::string rows = authd.sql("SELECT kid, sealed_private FROM oidc_signing_keys");
  std::set<std::string> published = kids(jwks(authd));
  int seen = 0;
  std::istringstream lines(rows);
  for (std::string line; std::getline(lines, line);) {
    if (line.empty()) continue;
    ++seen;
    std::string kid = line.substr(0, line.find('|'));
    std::string sealed = line.substr(line.find('|') + 1);
    EXPECT_TRUE(published.contains(kid));
    EXPECT_EQ(sealed.rfind("v1.", 0), 0u) << sealed.substr(0, 12);
    EXPECT_EQ(sealed.find("\"d\""), std::string::npos);
    EXPECT_EQ(authd.log_text().find(sealed), std::string::npos);
  }
  EXPECT_EQ(seen, 2);
  EXPECT_EQ(authd.log_text().find("\"d\":"), std::string::npos);
}

TEST(OidcKeys, Interface_17_12_RotateKeysPublishesTheNextPairAndNowRetiresTheCurrent) {
  AuthdProcess authd(keys_oidc_args());
  std::set<std::string> first = kids(jwks(authd));

  std::vector<std::string> next = rotate(authd, false);
  ASSERT_EQ(next.size(), 2u);
  ASSERT_EQ(authd.stop(), 0);  // a start reads the keys at once
  authd.start();
  std::set<std::string> published = kids(jwks(authd));
  EXPECT_EQ(published.size(), 4u);
  for (const std::string& kid : next) EXPECT_TRUE(published.contains(kid)) << kid;
  for (const std::string& kid : first) EXPECT_TRUE(published.contains(kid)) << kid;

  // --now: the old pairs retired, still published until their tokens expire.
  std::vector<std::string> now = rotate(authd, true);
  ASSERT_EQ(now.size(), 2u);
  ASSERT_EQ(authd.stop(), 0);
  authd.start();
  EXPECT_EQ(kids(jwks(authd)).size(), 6u);
  std::string retired = authd.sql(
      "SELECT count(*) FROM oidc_signing_keys WHERE retired_at IS NOT NULL AND remove_after IS "
      "NOT NULL");
  EXPECT_EQ(retired.substr(0, retired.find('\n')), "4");

  std::string events;
  ASSERT_EQ(authd.cli({"events", "--type", "oidc.signing_keys_rotated"}, "", &events), 0);
  EXPECT_EQ(std::count(events.begin(), events.end(), '\n'), 2) << events;
  EXPECT_NE(events.find(now[0]), std::string::npos);
  EXPECT_NE(events.find("\"actor\":\"cli\""), std::string::npos);
}

// A rotation falls due in the background: with a rotation period shorter
// than the prepublish time the next pair is due as soon as the first signs.
TEST(OidcKeys, Interface_17_12_TheServerMakesTheNextPairWhenARotationIsDue) {
  AuthdProcess authd(keys_oidc_args({"--oidc-key-rotation", "1h", "--oidc-key-prepublish", "2h"}));
  EXPECT_TRUE(within_a_refresh([&] { return jwks(authd).size() == 4u; }));
  ASSERT_EQ(authd.stop(), 0);
  authd.start();
  EXPECT_EQ(jwks(authd).size(), 4u);  // made once
}

TEST(OidcKeys, Interface_17_12_EveryInstanceServesTheSameJwksAndFollowsARotation) {
  AUTHD_POSTGRES_ONLY();
  AuthdProcess first(keys_oidc_args());
  AuthdProcess second(keys_oidc_args(), first.database_url());
  nlohmann::json one = jwks(first);
  EXPECT_EQ(one.size(), 2u);
  EXPECT_EQ(jwks(second), one);

  std::vector<std::string> next = rotate(first, false);
  ASSERT_EQ(next.size(), 2u);
  // Neither restarts: both read the keys again in the background.
  for (const AuthdProcess* instance : {&first, &second})
    EXPECT_TRUE(within_a_refresh([&] { return kids(jwks(*instance)).contains(next[1]); }));
  EXPECT_EQ(jwks(first), jwks(second));
  EXPECT_EQ(jwks(first).size(), 4u);
}

}  // namespace
}  // namespace authd::test
