// interface.md 17.10, 17.11: refresh tokens (offline_access, rotation,
// reuse detection, lifetimes, revocation on account events) and token
// revocation (RFC 7009), end to end over real HTTP on SQLite and
// PostgreSQL, and on two instances of one PostgreSQL database. Names
// follow the OpenID Foundation's conformance modules where one covers the
// rule (oidcc-refresh-token).
#include <algorithm>
#include <functional>
#include <thread>

#include "oidc_support.hpp"
#include "passkey_support.hpp"

namespace authd::test::refresh_tests {
namespace {

void expect_invalid_grant(const HttpResponse& res, const std::string& context) {
  EXPECT_EQ(res.status, 400) << context << ": " << res.body;
  EXPECT_EQ(res.json().value("error", ""), "invalid_grant") << context;
}

// ---- 17.10 issue and rotation ---------------------------------------------------

// oidcc-refresh-token: offline_access gives an authdrf_ refresh token; a
// refresh gives a new access token, the next refresh token and an ID token
// with the family's sub, sid and auth_time and no nonce; the old token is
// then dead, and presenting it revokes the family (the new refresh token
// and the new access token) and records oauth.refresh_token_reused.
TEST(OidcRefresh, Interface_17_10_oidcc_refresh_token_RotationAndReuseDetection) {
  AuthdProcess authd(oidc_args());
  std::string cookie = signed_in(authd);
  nlohmann::json client = register_client(authd);
  nlohmann::json first = offline_tokens(authd, client, cookie);
  std::string old_refresh = first.value("refresh_token", "");
  ASSERT_TRUE(old_refresh.starts_with("authdrf_")) << first.dump();
  EXPECT_EQ(first["scope"], kOffline);

  HttpResponse res = refresh(authd, client, old_refresh);
  ASSERT_EQ(res.status, 200) << res.body;
  EXPECT_EQ(res.header("Cache-Control"), "no-store");
  nlohmann::json second = res.json();
  std::string new_refresh = second["refresh_token"];
  EXPECT_TRUE(new_refresh.starts_with("authdrf_"));
  EXPECT_NE(new_refresh, old_refresh);
  EXPECT_EQ(second["token_type"], "Bearer");
  EXPECT_EQ(second["scope"], kOffline);
  EXPECT_GT(second["expires_in"].get<int>(), 0);
  nlohmann::json before = jwt_payload(first["id_token"]);
  nlohmann::json after = jwt_payload(second["id_token"]);
  EXPECT_EQ(after["sub"], before["sub"]);
  EXPECT_EQ(after["sid"], before["sid"]);
  EXPECT_EQ(after["auth_time"], before["auth_time"]);
  EXPECT_EQ(after["aud"], client["clientId"]);
  EXPECT_FALSE(after.contains("nonce"));
  EXPECT_EQ(userinfo_status(authd, second["access_token"]), 200);

  expect_invalid_grant(refresh(authd, client, old_refresh), "the rotated token again");
  expect_invalid_grant(refresh(authd, client, new_refresh), "the family's newest after a reuse");
  EXPECT_EQ(userinfo_status(authd, second["access_token"]), 401);
  EXPECT_EQ(userinfo_status(authd, first["access_token"]), 401);
  std::vector<nlohmann::json> reused = events_of_type(authd, "oauth.refresh_token_reused");
  ASSERT_EQ(reused.size(), 1u);
  EXPECT_EQ(reused[0]["detail"]["clientId"], client["clientId"]);
  EXPECT_EQ(reused[0]["detail"]["revokedTokens"], 4);  // two refresh, two access tokens
}

// Without offline_access no refresh token; a client without the
// refresh_token grant may not ask for offline_access nor refresh.
TEST(OidcRefresh, Interface_17_10_OnlyOfflineAccessGivesARefreshToken) {
  AuthdProcess authd(oidc_args());
  std::string cookie = signed_in(authd);
  nlohmann::json client = register_client(authd);
  nlohmann::json plain = offline_tokens(authd, client, cookie, "openid email");
  EXPECT_FALSE(plain.contains("refresh_token")) << plain.dump();

  nlohmann::json no_grant = register_client(authd, {{"grantTypes", {"authorization_code"}}});
  Pkce pkce;
  expect_error_redirect(
      authorize(authd, code_request(no_grant["clientId"], pkce, kOffline), cookie), "invalid_scope",
      "offline_access without the refresh_token grant");
  HttpResponse res = refresh(authd, no_grant, "authdrf_whatever");
  EXPECT_EQ(res.status, 400) << res.body;
  EXPECT_EQ(res.json()["error"], "unauthorized_client");
}

// 17.10: a third-party client's consent page lists offline_access.
TEST(OidcRefresh, Interface_17_10_ConsentPageListsOfflineAccess) {
  AuthdProcess authd(oidc_args());
  std::string cookie = signed_in(authd);
  nlohmann::json client = register_client(authd, {{"firstParty", false}});
  Pkce pkce;
  HttpResponse res = authorize(authd, code_request(client["clientId"], pkce, kOffline), cookie);
  ASSERT_EQ(location_base(res), kIssuer + "/consent") << res.header("Location");
  std::string id = location_parameters(res)["request"];
  HttpResponse page = browser_get(authd, "/consent?request=" + id, cookie);
  ASSERT_EQ(page.status, 200) << page.body;
  EXPECT_NE(page.body.find("data-scope=\"offline_access\""), std::string::npos) << page.body;
}

// RFC 6749 6: a narrower scope on ask; a wider one is invalid_scope and
// uses nothing up; the family keeps its original scope.
TEST(OidcRefresh, Interface_17_10_ScopeMayNarrowNotWiden) {
  AuthdProcess authd(oidc_args());
  std::string cookie = signed_in(authd);
  nlohmann::json client = register_client(authd);
  std::string token = offline_tokens(authd, client, cookie)["refresh_token"];
  HttpResponse wider = refresh(authd, client, token, "openid phone");
  EXPECT_EQ(wider.status, 400) << wider.body;
  EXPECT_EQ(wider.json()["error"], "invalid_scope");
  HttpResponse narrow = refresh(authd, client, token, "email");
  ASSERT_EQ(narrow.status, 200) << narrow.body;
  EXPECT_EQ(narrow.json()["scope"], "email");
  EXPECT_FALSE(narrow.json().contains("id_token"));  // no openid, no ID token
  EXPECT_EQ(userinfo_status(authd, narrow.json()["access_token"]), 403);
  HttpResponse whole = refresh(authd, client, narrow.json()["refresh_token"]);
  ASSERT_EQ(whole.status, 200) << whole.body;
  EXPECT_EQ(whole.json()["scope"], kOffline);
}

// A refresh token is bound to its client: another one gets invalid_grant
// and the token stays good.
TEST(OidcRefresh, Interface_17_10_RefreshTokenIsBoundToItsClient) {
  AuthdProcess authd(oidc_args());
  std::string cookie = signed_in(authd);
  nlohmann::json client = register_client(authd);
  nlohmann::json other = register_client(authd);
  std::string token = offline_tokens(authd, client, cookie)["refresh_token"];
  expect_invalid_grant(refresh(authd, other, token), "another client");
  expect_invalid_grant(refresh(authd, client, "authdrf_unknown"), "unknown");
  EXPECT_EQ(refresh(authd, client, token).status, 200);
  EXPECT_TRUE(events_of_type(authd, "oauth.refresh_token_reused").empty());
}

// --oidc-refresh-idle and --oidc-refresh-max: past either, invalid_grant.
TEST(OidcRefresh, Interface_17_10_IdleAndAbsoluteLifetimes) {
  for (const char* flag : {"--oidc-refresh-idle", "--oidc-refresh-max"}) {
    AuthdProcess authd(oidc_args({flag, "1ms"}));
    std::string cookie = signed_in(authd);
    nlohmann::json client = register_client(authd);
    std::string token = offline_tokens(authd, client, cookie)["refresh_token"];
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
    expect_invalid_grant(refresh(authd, client, token), flag);
  }
}

// A rotation keeps the family's absolute end: both tokens of the family
// share it, and the new token's idle end is capped by it.
TEST(OidcRefresh, Interface_17_10_RotationKeepsTheFamilysAbsoluteEnd) {
  AuthdProcess authd(oidc_args({"--oidc-refresh-idle", "60d", "--oidc-refresh-max", "45d"}));
  std::string cookie = signed_in(authd);
  nlohmann::json client = register_client(authd);
  std::string token = offline_tokens(authd, client, cookie)["refresh_token"];
  HttpResponse res = refresh(authd, client, token);
  ASSERT_EQ(res.status, 200) << res.body;
  EXPECT_EQ(lines(authd.sql("select count(distinct family_expires_at) from oauth_refresh_tokens")),
            std::vector<std::string>{"1"});
  EXPECT_EQ(lines(authd.sql("select count(*) from oauth_refresh_tokens "
                            "where expires_at = family_expires_at and used_at is null")),
            std::vector<std::string>{"1"});
  EXPECT_EQ(lines(authd.sql("select count(*) from oauth_refresh_tokens where used_at is not null")),
            std::vector<std::string>{"1"});
}

// The authd session's end does not end refresh tokens (offline_access).
TEST(OidcRefresh, Interface_17_10_SessionLogoutKeepsRefreshTokens) {
  AuthdProcess authd(oidc_args());
  std::string cookie = signed_in(authd);
  nlohmann::json client = register_client(authd);
  std::string token = offline_tokens(authd, client, cookie)["refresh_token"];
  ASSERT_EQ(post_with_token(authd.port(), "/logout", cookie).status, 200);
  EXPECT_EQ(refresh(authd, client, token).status, 200);
}

// A reused authorization code also revokes the refresh family (RFC 6749
// 4.1.2, decision 1).
TEST(OidcRefresh, Interface_17_6_oidcc_codereuse_RevokesTheRefreshFamily) {
  AuthdProcess authd(oidc_args());
  std::string cookie = signed_in(authd);
  nlohmann::json client = register_client(authd);
  Pkce pkce;
  std::string code = code_for(authd, client, cookie, pkce, kOffline);
  nlohmann::json first = exchange_code(authd, client, code, pkce).json();
  HttpResponse again = exchange_code(authd, client, code, pkce);
  expect_invalid_grant(again, "code reuse");
  expect_invalid_grant(refresh(authd, client, first["refresh_token"]), "family after code reuse");
}

// ---- 17.10 concurrent use: exactly one wins ---------------------------------------

// N uses of one refresh token at once, spread over `instances`: one 200;
// the others are reuses, so (decision 2) the winner's tokens die too.
void expect_one_winner(const std::vector<const AuthdProcess*>& instances,
                       const nlohmann::json& client, const std::string& token) {
  std::vector<HttpResponse> answers(8);
  std::vector<std::thread> threads;
  for (std::size_t i = 0; i < answers.size(); ++i)
    threads.emplace_back(
        [&, i] { answers[i] = refresh(*instances[i % instances.size()], client, token); });
  for (std::thread& thread : threads) thread.join();
  auto won = std::find_if(answers.begin(), answers.end(),
                          [](const HttpResponse& res) { return res.status == 200; });
  ASSERT_NE(won, answers.end());
  EXPECT_EQ(std::count_if(answers.begin(), answers.end(),
                          [](const HttpResponse& res) { return res.status == 200; }),
            1);
  for (const HttpResponse& res : answers)
    if (res.status != 200) expect_invalid_grant(res, "a concurrent loser");
  expect_invalid_grant(refresh(*instances[0], client, won->json()["refresh_token"]),
                       "the winner's token after the reuse");
}

TEST(OidcRefresh, Interface_17_10_ConcurrentUsesOfOneRefreshTokenGiveOneWinner) {
  AuthdProcess authd(oidc_args());
  std::string cookie = signed_in(authd);
  nlohmann::json client = register_client(authd);
  std::string token = offline_tokens(authd, client, cookie)["refresh_token"];
  expect_one_winner({&authd}, client, token);
}

// A reuse revokes the whole family even while the family's current token is
// being rotated (a thief refreshing in a loop as the client presents the
// token the thief rotated away): the reuse's revocation waits for the
// rotation's row lock, and the token the rotation then commits dies with
// the rest. On PostgreSQL a lock held on the user's row stops both before
// either locks its token (8.2: a user's row first), and they then run one
// after the other, as SQLite's single writer runs them.
TEST(OidcRefresh, Interface_17_10_ReuseRevokesTheTokenOfARotationInFlight) {
  AuthdProcess authd(oidc_args());
  std::string cookie = signed_in(authd);
  nlohmann::json client = register_client(authd);
  nlohmann::json first = offline_tokens(authd, client, cookie);
  std::string used = first["refresh_token"];
  HttpResponse second = refresh(authd, client, used);
  ASSERT_EQ(second.status, 200) << second.body;
  std::string current = second.json()["refresh_token"];
  std::string user_id = jwt_payload(first["id_token"])["sub"];

  std::optional<HeldLock> lock;
  if (on_postgres())
    lock.emplace(authd, "BEGIN; SELECT id FROM users WHERE id = '" + user_id + "' FOR UPDATE");
  HttpResponse rotated;
  HttpResponse reused;
  std::thread rotation([&] { rotated = refresh(authd, client, current); });
  std::this_thread::sleep_for(std::chrono::milliseconds(300));  // holds its row, waits
  std::thread reuse([&] { reused = refresh(authd, client, used); });
  std::this_thread::sleep_for(std::chrono::milliseconds(300));  // waits for that row
  if (lock) lock->release();
  rotation.join();
  reuse.join();
  expect_invalid_grant(reused, "the reused token");
  if (rotated.status == 200) {
    expect_invalid_grant(refresh(authd, client, rotated.json()["refresh_token"]),
                         "the token of the rotation in flight");
    EXPECT_EQ(userinfo_status(authd, rotated.json()["access_token"]), 401);
  } else {
    expect_invalid_grant(rotated, "a rotation after the reuse");
  }
}

// ---- 8.2: a user's row before its token's ------------------------------------------

// A password change, a reset, disabling and erasing an account lock the
// user's row and then delete the user's tokens and codes: a rotation or an
// exchange in flight waits for the user's row before it locks its token's
// or code's (answer_beside_an_account_change).
void expect_invalid_grant_beside_an_account_change(const AuthdProcess& authd,
                                                   const std::string& user_id,
                                                   const std::string& table,
                                                   const std::function<HttpResponse()>& request) {
  expect_invalid_grant(answer_beside_an_account_change(authd, user_id, table, request),
                       "a grant whose tokens the account's change deleted");
}

TEST(OidcRefresh, Interface_8_2_ARotationWaitsForItsUserBeforeLockingItsToken) {
  AUTHD_POSTGRES_ONLY();
  AuthdProcess authd(oidc_args());
  std::string cookie = signed_in(authd);
  nlohmann::json client = register_client(authd);
  nlohmann::json first = offline_tokens(authd, client, cookie);
  std::string user_id = jwt_payload(first["id_token"])["sub"];
  expect_invalid_grant_beside_an_account_change(authd, user_id, "oauth_refresh_tokens", [&] {
    return refresh(authd, client, first["refresh_token"]);
  });
}

TEST(OidcRefresh, Interface_8_2_AnExchangeWaitsForItsUserBeforeLockingItsCode) {
  AUTHD_POSTGRES_ONLY();
  AuthdProcess authd(oidc_args());
  std::string cookie = signed_in(authd);
  nlohmann::json client = register_client(authd);
  std::string user_id = jwt_payload(offline_tokens(authd, client, cookie)["id_token"])["sub"];
  Pkce pkce;
  std::string code = code_for(authd, client, cookie, pkce, kOffline);
  expect_invalid_grant_beside_an_account_change(
      authd, user_id, "oauth_codes", [&] { return exchange_code(authd, client, code, pkce); });
}

// A client's deletion (17.3) beside another writer of the client's tokens,
// played by the database client: it takes `first_lock`, waits until the
// deletion waits, then runs `next_step` and commits. The client holds one
// refresh family of two tokens (one refresh). The deletion answers 204 and
// leaves nothing of the client (17.10: nothing of a deleted client stays
// usable). `{user}`, `{client}` and `{other}` in the statements are the
// ids of the client's user, the client and another user without grants.
void expect_deletion_beside(const std::string& first_lock, const std::string& next_step) {
  AuthdProcess authd(oidc_args());
  std::string cookie = signed_in(authd);
  nlohmann::json client = register_client(authd);
  nlohmann::json tokens = offline_tokens(authd, client, cookie);
  ASSERT_EQ(refresh(authd, client, tokens["refresh_token"]).status, 200);
  const std::string id = client["clientId"];
  const std::string user_id = jwt_payload(tokens["id_token"])["sub"];
  const std::string key = admin::create_key(authd, "deleter");
  authd.add_user("other@example.com", kPassword);
  const std::string other =
      lines(authd.sql("SELECT id FROM users WHERE email = 'other@example.com'"))[0];
  auto named = [&](std::string sql) {
    for (auto at = sql.find("{user}"); at != std::string::npos; at = sql.find("{user}"))
      sql.replace(at, 6, user_id);
    for (auto at = sql.find("{client}"); at != std::string::npos; at = sql.find("{client}"))
      sql.replace(at, 8, id);
    for (auto at = sql.find("{other}"); at != std::string::npos; at = sql.find("{other}"))
      sql.replace(at, 7, other);
    return sql;
  };
  HttpResponse deleted = answer_beside_a_writer(authd, named(first_lock), named(next_step), [&] {
    return admin::call(authd, key, "DELETE", "/admin/clients/" + id);
  });
  EXPECT_EQ(deleted.status, 204) << deleted.body;
  for (const std::string where : {"oauth_refresh_tokens WHERE client_id",
                                  "oauth_access_tokens WHERE client_id", "oauth_clients WHERE id"})
    EXPECT_EQ(std::stol(authd.sql("SELECT count(*) FROM " + where + " = '" + id + "'")), 0)
        << where;
}

// What a rotation of `owner`'s commits: a copy of each of the client's
// refresh and access tokens, under new digests, as `owner`'s.
std::string rotation_commits(const std::string& owner) {
  std::string sql;
  for (const std::string table : {"oauth_refresh_tokens", "oauth_access_tokens"})
    sql += "CREATE TEMP TABLE copy_of_" + table + " AS SELECT * FROM " + table +
           " WHERE client_id = '{client}'; UPDATE copy_of_" + table +
           " SET token_digest = sha256(token_digest), user_id = '" + owner + "'; INSERT INTO " +
           table + " SELECT * FROM copy_of_" + table + ";";
  return sql;
}

const std::string kRotationLocks =
    "SELECT 1 FROM users WHERE id = '{user}' FOR UPDATE; "
    "SELECT 1 FROM oauth_refresh_tokens WHERE client_id = '{client}' AND used_at IS NULL "
    "FOR UPDATE";

// A rotation in flight holds its user's and its token's rows: the deletion
// waits, and the tokens the rotation then commits are deleted too.
TEST(OidcRefresh, Interface_17_10_AClientsDeletionTakesTheTokensOfARotationInFlight) {
  AUTHD_POSTGRES_ONLY();
  expect_deletion_beside(kRotationLocks, rotation_commits("{user}"));
}

// A grant of a user the deletion did not lock (its first, issued after the
// deletion read the client's users) holds the client's key: the client's
// own DELETE waits for it, after every token DELETE found nothing, and
// then finds the tokens it committed still referring to the client; the
// deletion goes round again.
TEST(OidcRefresh, Interface_17_10_AClientsDeletionGoesRoundAgainForTokensCommittedAtItsEnd) {
  AUTHD_POSTGRES_ONLY();
  expect_deletion_beside(
      "SELECT 1 FROM users WHERE id = '{other}' FOR UPDATE; "
      "SELECT 1 FROM oauth_clients WHERE id = '{client}' FOR KEY SHARE",
      rotation_commits("{other}"));
}

// 8.2: a reuse's revocation holds the user's row and the family's newest
// token, then deletes the family. The deletion locks the users of the
// client's grants first: without that, it held the family's older token
// while waiting for the newest, and the two deadlocked.
TEST(OidcRefresh, Interface_8_2_AClientsDeletionWaitsForTheUsersOfItsGrants) {
  AUTHD_POSTGRES_ONLY();
  expect_deletion_beside(kRotationLocks,
                         "DELETE FROM oauth_refresh_tokens WHERE client_id = '{client}'");
}

// Two instances on one PostgreSQL database (8.2): the row lock decides.
TEST(OidcRefreshScaleOut, Interface_17_10_ConcurrentUsesOnTwoInstancesGiveOneWinner) {
  AUTHD_POSTGRES_ONLY();
  AuthdProcess a(oidc_args());
  AuthdProcess b(oidc_args(), a.database_url());
  std::string cookie = signed_in(a);
  nlohmann::json client = register_client(a);
  std::string token = offline_tokens(a, client, cookie)["refresh_token"];
  ASSERT_EQ(refresh(b, client, token).status, 200);  // the other instance knows it
  token = offline_tokens(a, client, cookie)["refresh_token"];
  expect_one_winner({&a, &b}, client, token);
}

}  // namespace
}  // namespace authd::test::refresh_tests
