// interface.md 17.3.3 and 17.7: client authentication at the token endpoint
// is throttled per client address as failed logins are, and userinfo (17.8)
// answers each token for itself when many come at once. Both are served by
// shortcuts (a read-only check of a right secret, one PostgreSQL statement
// for a batch of token lookups: docs/design/performance-choices.md); these
// tests pin what the shortcuts must keep. SQLite and PostgreSQL.
#include <thread>

#include "oidc_support.hpp"
#include "passkey_support.hpp"

namespace authd::test {
namespace {

// A token request that gets past client authentication and then fails on
// its grant: 400 invalid_grant says the client authenticated, 401 that it
// did not, 429 that it was throttled without being checked.
HttpResponse authenticate_only(const AuthdProcess& authd, const std::string& id,
                               const std::string& secret) {
  return token_request(authd,
                       {{"grant_type", "authorization_code"},
                        {"code", "authdac_unknown"},
                        {"redirect_uri", kRedirect},
                        {"code_verifier", std::string(43, 'a')}},
                       id, secret);
}

void expect_client_throttled(const HttpResponse& res, const std::string& context) {
  EXPECT_EQ(res.status, 429) << context << ": " << res.body;
  if (res.status != 429) return;
  EXPECT_EQ(res.json()["error"], "invalid_client") << context;
  EXPECT_FALSE(res.header("Retry-After").empty()) << context;
}

// Right secrets leave no count behind: after many of them the address still
// has its whole allowance of wrong ones, each counted and recorded, and past
// it even the right secret is answered 429 invalid_client, unchecked.
TEST(OidcClientAuth, Interface_17_3_3_RightSecretsAreNotCountedWrongOnesAreAndThrottleAll) {
  AuthdProcess authd(oidc_args({"--login-client-limit", "3/15m"}));
  nlohmann::json client = register_client(authd);
  const std::string id = client["clientId"];
  const std::string secret = client["clientSecret"];
  for (int i = 0; i < 6; ++i) {
    HttpResponse res = authenticate_only(authd, id, secret);
    ASSERT_EQ(res.status, 400) << i << ": " << res.body;
    EXPECT_EQ(res.json()["error"], "invalid_grant") << i;
  }
  for (int i = 0; i < 3; ++i) {
    HttpResponse res = authenticate_only(authd, id, "authdcs_wrong");
    EXPECT_EQ(res.status, 401) << i << ": " << res.body;
    EXPECT_EQ(res.json()["error"], "invalid_client") << i;
  }
  expect_client_throttled(authenticate_only(authd, id, "authdcs_wrong"),
                          "a wrong secret past the limit");
  expect_client_throttled(authenticate_only(authd, id, secret), "the right secret past the limit");
  nlohmann::json public_client = register_client(authd, {{"type", "public"}});
  expect_client_throttled(token_request(authd, {{"grant_type", "authorization_code"},
                                                {"client_id", public_client["clientId"]}}),
                          "a public client past the limit");
  EXPECT_EQ(events_of_type(authd, "oauth.client_auth_failed").size(), 3u);
}

// Wrong secrets sent at once are each counted before any is checked: of ten
// at a limit of three, exactly three are checked (401), the rest are 429.
TEST(OidcClientAuth, Interface_17_7_ConcurrentWrongSecretsAreAllCounted) {
  AuthdProcess authd(oidc_args({"--login-client-limit", "3/15m"}));
  nlohmann::json client = register_client(authd);
  const std::string id = client["clientId"];
  std::vector<int> statuses(10);
  std::vector<std::thread> threads;
  for (std::size_t i = 0; i < statuses.size(); ++i)
    threads.emplace_back([&, i] {
      statuses[i] = authenticate_only(authd, id, "authdcs_wrong" + std::to_string(i)).status;
    });
  for (std::thread& thread : threads) thread.join();
  EXPECT_EQ(std::count(statuses.begin(), statuses.end(), 401), 3);
  EXPECT_EQ(std::count(statuses.begin(), statuses.end(), 429), 7);
  EXPECT_EQ(events_of_type(authd, "oauth.client_auth_failed").size(), 3u);
}

// ---- 17.8: many userinfo requests at once ----------------------------------------

struct MintedToken {
  std::string token;
  int status = 0;
  std::string email;  // the claim a 200 carries
};

std::string mint_token(const AuthdProcess& authd, const nlohmann::json& client,
                       const std::string& cookie, const std::string& scope = "openid email") {
  Pkce pkce;
  std::string code = code_for(authd, client, cookie, pkce, scope);
  HttpResponse res = exchange_code(authd, client, code, pkce);
  EXPECT_EQ(res.status, 200) << res.body;
  return res.status == 200 ? res.json().value("access_token", "") : "";
}

// On PostgreSQL the token lookups of a batch of reads share one statement:
// valid tokens of two users, an expired one, a revoked one (its code was
// used again, 17.6), a disabled user's, one without `openid` and an unknown
// one, all at once and several times over, each get their own answer. Two
// instances on one database: one gives tokens that expire in a second.
TEST(OidcClientAuth, Interface_17_8_ConcurrentUserinfoRequestsEachGetTheirOwnAnswer) {
  AUTHD_POSTGRES_ONLY();
  AuthdProcess brief(oidc_args({"--oidc-access-token-ttl", "1s"}));
  AuthdProcess authd(oidc_args(), brief.database_url());
  const std::string bob = "bob@example.com";
  const std::string carol = "carol@example.com";
  authd.add_user(kEmail, kPassword);
  authd.add_user(bob, kPassword);
  authd.add_user(carol, kPassword);
  const std::string alice_cookie = authd.login(kEmail, kPassword);
  nlohmann::json client = register_client(authd);

  std::vector<MintedToken> minted;
  std::string expired = mint_token(brief, client, alice_cookie);
  minted.push_back({mint_token(authd, client, alice_cookie), 200, kEmail});
  minted.push_back({mint_token(authd, client, authd.login(bob, kPassword)), 200, bob});
  minted.push_back({mint_token(authd, client, alice_cookie, "email"), 403, ""});
  minted.push_back({"authdat_unknown", 401, ""});
  Pkce pkce;
  std::string code = code_for(authd, client, alice_cookie, pkce);
  HttpResponse first = exchange_code(authd, client, code, pkce);
  ASSERT_EQ(first.status, 200) << first.body;
  ASSERT_EQ(exchange_code(authd, client, code, pkce).status, 400);  // revokes the first's token
  minted.push_back({first.json()["access_token"], 401, ""});
  const std::string carols = mint_token(authd, client, authd.login(carol, kPassword));
  const std::string carol_id =
      get_with_token(authd.port(), "/oauth2/userinfo", carols).json().value("sub", "");
  minted.push_back({carols, 401, ""});
  std::string key = admin::create_key(authd, "userinfo-batch");
  ASSERT_EQ(admin::call(authd, key, "PATCH", "/admin/users/" + carol_id,
                        nlohmann::json{{"disabled", true}})
                .status,
            200);
  // Past the brief token's expiry (a second), seen by the server itself.
  while (get_with_token(authd.port(), "/oauth2/userinfo", expired).status == 200)
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  minted.push_back({expired, 401, ""});

  constexpr std::size_t kCopies = 4;
  for (int round = 0; round < 3; ++round) {
    std::vector<HttpResponse> answers(minted.size() * kCopies);
    std::vector<std::thread> threads;
    for (std::size_t i = 0; i < answers.size(); ++i)
      threads.emplace_back([&, i] {
        answers[i] =
            get_with_token(authd.port(), "/oauth2/userinfo", minted[i % minted.size()].token);
      });
    for (std::thread& thread : threads) thread.join();
    for (std::size_t i = 0; i < answers.size(); ++i) {
      const MintedToken& want = minted[i % minted.size()];
      const HttpResponse& got = answers[i];
      ASSERT_EQ(got.status, want.status)
          << "round " << round << ", token " << i % minted.size() << ": " << got.body;
      if (want.status == 200) {
        EXPECT_EQ(got.json()["email"], want.email) << i % minted.size();
      }
      if (want.status == 401) {
        EXPECT_NE(got.header("WWW-Authenticate").find("invalid_token"), std::string::npos);
      }
    }
  }
}

}  // namespace
}  // namespace authd::test
