// interface.md 18.5: the upstream provider's tokens, kept on the link only
// for a provider with `keep-tokens = true`, sealed (12.2), read back by the
// admin API only (GET /admin/identities/{id}/tokens, a `write` key),
// replaced at each sign-in, dropped at the next start once the setting is
// off or the provider gone, and gone with the link (an unlink, an erasure). Against the test
// doubles of tests/interop/upstream/, on SQLite and PostgreSQL; the tests
// play the browser as upstream_signin_test.cpp does.
#include <chrono>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <thread>

#include <gtest/gtest.h>

#include "admin_support.hpp"
#include "mfa_support.hpp"
#include "oidc_support.hpp"
#include "upstream_browser.hpp"
#include "upstream_doubles.hpp"

namespace authd::test::kept_tokens {
namespace {

std::string conf_path(const std::string& name) {
  auto dir = std::filesystem::temp_directory_path() /
             ("authd-upstream-tokens-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  static int counter = 0;
  return (dir / (std::to_string(++counter) + "-" + name)).string();
}

// A server whose configuration file the test may rewrite between restarts.
struct Configured {
  std::string path;
  std::vector<std::string> args;
};
Configured configured(const std::string& tables) {
  Configured c{conf_path("authd.toml"), fast_hashing()};
  std::ofstream(c.path) << tables;
  c.args.insert(c.args.end(), {"--public-url", kPublic, "--config", c.path});
  return c;
}

// A whole sign-in through the evil IdP, in a new browser; its session cookie.
std::string sign_in(const AuthdProcess& authd) {
  Browser browser;
  HttpResponse started = browser.get(authd, "/signin/evil");
  EXPECT_EQ(started.status, 302) << started.body;
  HttpResponse back = browser.get(authd, through_idp(started.header("Location")));
  EXPECT_EQ(back.status, 302) << back.body;
  return browser.cookies["authd_session"];
}

std::string trimmed(const std::string& text) { return without_trailing_newlines(text); }

std::string link_id(const AuthdProcess& authd) {
  return trimmed(authd.sql("SELECT id FROM identities WHERE provider = 'evil'"));
}

long long rows_keeping(const AuthdProcess& authd, const std::string& where = "1 = 1") {
  return std::stoll(trimmed(
      authd.sql("SELECT count(*) FROM identities WHERE kept_tokens IS NOT NULL AND " + where)));
}

// Whether `secret` is anywhere at rest: in the column (both databases), and
// for SQLite in the raw bytes of the database file and its WAL.
bool stored_in_clear(const AuthdProcess& authd, const std::string& secret) {
  if (rows_keeping(authd, "kept_tokens LIKE '%" + secret + "%'") > 0) return true;
  if (on_postgres()) return false;
  for (const char* suffix : {"", "-wal"}) {
    std::ifstream file(authd.database_path() + suffix, std::ios::binary);
    std::string bytes((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
    if (bytes.find(secret) != std::string::npos) return true;
  }
  return false;
}

// Waits, bounded, until no more than `count` links keep tokens (the
// pruner's first pass runs as authd starts, beside the requests).
bool keeping_at_most(const AuthdProcess& authd, long long count) {
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (rows_keeping(authd) > count && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  return rows_keeping(authd) <= count;
}

// A second link of the same account that kept tokens for a provider named
// `provider`, written as a sign-in through it would have, before a start.
void kept_for(const AuthdProcess& authd, const std::string& provider) {
  authd.sql(
      "INSERT INTO identities (id, user_id, provider, subject, email, created_at, kept_tokens, "
      "tokens_kept_at) SELECT '01900000-0000-7000-8000-0000000000aa', user_id, '" +
      provider + "', 'other-1', NULL, 1, 'v1.00000000.sealed', 1 FROM identities LIMIT 1");
}

HttpResponse read_tokens(const AuthdProcess& authd, const std::string& key, const std::string& id) {
  return admin::call(authd, key, "GET", "/admin/identities/" + id + "/tokens");
}

class UpstreamKeptTokens : public ::testing::Test {
 protected:
  void SetUp() override {
    idp_ = std::make_unique<UpstreamDouble>("evil_idp.mjs", "authd-evil", kEvilCallback);
    idp_->control("PUT", "/_test/account",
                  {{"sub", "corp-7"},
                   {"email", "erin@corp.example"},
                   {"email_verified", true},
                   {"name", "Erin"}});
  }
  nlohmann::json issued() { return idp_->control("GET", "/_test/issued", nlohmann::json()); }
  std::unique_ptr<UpstreamDouble> idp_;
};

// 18.5: without keep-tokens (the default) nothing of the answer is stored.
TEST_F(UpstreamKeptTokens, Interface_18_5_WithoutKeepTokensNothingIsKept) {
  Configured c = configured(evil_table(*idp_, true));
  AuthdProcess authd(c.args);
  ASSERT_FALSE(sign_in(authd).empty());
  nlohmann::json answer = issued();
  ASSERT_TRUE(answer.contains("access_token")) << answer.dump();
  std::string id = link_id(authd);
  ASSERT_FALSE(id.empty());
  EXPECT_EQ(rows_keeping(authd), 0);
  EXPECT_EQ(trimmed(authd.sql("SELECT count(*) FROM identities WHERE tokens_kept_at IS NULL")),
            "1");
  EXPECT_FALSE(stored_in_clear(authd, answer["access_token"]));
  EXPECT_FALSE(stored_in_clear(authd, answer["refresh_token"]));
  std::string writer = admin::create_key(authd, "ops");
  EXPECT_EQ(read_tokens(authd, writer, id).status, 404);
}

// 18.5: with keep-tokens, the answer the provider gave is kept sealed and
// the admin API reads it back whole; never in clear at rest, in the events
// or in the log.
TEST_F(UpstreamKeptTokens, Interface_18_5_KeptTokensAreSealedAndReadByTheAdminApi) {
  Configured c = configured(evil_table(*idp_, true) + "keep-tokens = true\n");
  AuthdProcess authd(c.args);
  ASSERT_FALSE(sign_in(authd).empty());
  nlohmann::json answer = issued();
  std::string id = link_id(authd);
  std::string writer = admin::create_key(authd, "ops");

  HttpResponse read = read_tokens(authd, writer, id);
  ASSERT_EQ(read.status, 200) << read.body;
  EXPECT_EQ(read.header("Cache-Control"), "no-store");
  nlohmann::json kept = read.json();
  EXPECT_EQ(kept["accessToken"], answer["access_token"]);
  EXPECT_EQ(kept["tokenType"], "Bearer");
  EXPECT_EQ(kept["scope"], "openid email profile");
  EXPECT_EQ(kept["refreshToken"], answer["refresh_token"]);
  EXPECT_EQ(kept["idToken"], answer["id_token"]);
  ASSERT_TRUE(kept["expiresAt"].is_string()) << read.body;
  ASSERT_TRUE(kept["storedAt"].is_string()) << read.body;
  EXPECT_GT(kept["expiresAt"].get<std::string>(), kept["storedAt"].get<std::string>());
  // The token works at the provider: it is the one the double issued.
  SplitUrl info = split_url(idp_->base() + "/userinfo");
  HttpResponse user =
      send_request(info.port, "GET", info.target,
                   {{"Authorization", "Bearer " + kept["accessToken"].get<std::string>()}});
  EXPECT_EQ(user.status, 200) << user.body;

  EXPECT_EQ(rows_keeping(authd, "kept_tokens LIKE 'v1.%'"), 1);
  for (const char* secret : {"access_token", "refresh_token", "id_token"}) {
    SCOPED_TRACE(secret);
    EXPECT_FALSE(stored_in_clear(authd, answer[secret]));
    EXPECT_EQ(authd.sql("SELECT detail FROM events").find(answer[secret].get<std::string>()),
              std::string::npos);
    EXPECT_EQ(authd.log_text().find(answer[secret].get<std::string>()), std::string::npos);
  }
  EXPECT_EQ(read_tokens(authd, writer, "01900000-0000-7000-8000-000000000000").status, 404);
  // Who read which link's tokens is logged (not an event, 14.1.1).
  std::string log = authd.log_text();
  auto line = log.find("upstream_tokens_read");
  ASSERT_NE(line, std::string::npos) << log;
  std::string read_line = log.substr(line, log.find('\n', line) - line);
  EXPECT_NE(read_line.find(id), std::string::npos) << read_line;
  EXPECT_NE(read_line.find("admin:ops"), std::string::npos) << read_line;
}

// 18.5: only the admin API with a write key: a read key is refused (403),
// the user's own session is not an admin key (401), and the route is not on
// the public listener (404); the owner's list never shows them.
TEST_F(UpstreamKeptTokens, Interface_18_5_OnlyAWriteKeyReadsTheKeptTokens) {
  Configured c = configured(evil_table(*idp_, true) + "keep-tokens = true\n");
  AuthdProcess authd(c.args);
  std::string session = sign_in(authd);
  ASSERT_FALSE(session.empty());
  std::string access = issued()["access_token"];
  std::string id = link_id(authd);
  std::string reader = admin::create_key(authd, "dashboard", "read");
  std::string writer = admin::create_key(authd, "ops");
  ASSERT_EQ(read_tokens(authd, writer, id).status, 200);

  EXPECT_EQ(read_tokens(authd, reader, id).status, 403);
  HttpResponse by_session = read_tokens(authd, session, id);
  EXPECT_EQ(by_session.status, 401);
  EXPECT_EQ(by_session.body.find(access), std::string::npos);
  for (const Headers& credentials : {Headers{{"Authorization", "Bearer " + session}},
                                     Headers{{"Cookie", "authd_session=" + session}}}) {
    HttpResponse public_side =
        send_request(authd.port(), "GET", "/admin/identities/" + id + "/tokens", credentials);
    EXPECT_EQ(public_side.status, 404);
    EXPECT_EQ(public_side.body.find(access), std::string::npos);
  }
  HttpResponse own =
      send_request(authd.port(), "GET", "/identities", {{"Authorization", "Bearer " + session}});
  ASSERT_EQ(own.status, 200) << own.body;
  EXPECT_EQ(own.body.find(access), std::string::npos);
}

// 18.5: each sign-in replaces what the link kept.
TEST_F(UpstreamKeptTokens, Interface_18_5_ASecondSignInReplacesTheKeptTokens) {
  Configured c = configured(evil_table(*idp_, true) + "keep-tokens = true\n");
  AuthdProcess authd(c.args);
  ASSERT_FALSE(sign_in(authd).empty());
  std::string first = issued()["access_token"];
  ASSERT_FALSE(sign_in(authd).empty());
  std::string second = issued()["access_token"];
  ASSERT_NE(first, second);
  std::string writer = admin::create_key(authd, "ops");
  HttpResponse read = read_tokens(authd, writer, link_id(authd));
  ASSERT_EQ(read.status, 200) << read.body;
  EXPECT_EQ(read.json()["accessToken"], second);
  EXPECT_EQ(rows_keeping(authd), 1);
}

// 18.5.1: keep-tokens turned off, what the links kept is dropped as authd
// starts, without waiting for a sign-in through them; the link stays.
TEST_F(UpstreamKeptTokens, Interface_18_5_1_TurningKeepTokensOffForgetsThemAtTheNextStart) {
  Configured c = configured(evil_table(*idp_, true) + "keep-tokens = true\n");
  AuthdProcess authd(c.args);
  ASSERT_FALSE(sign_in(authd).empty());
  std::string access = issued()["access_token"];
  std::string id = link_id(authd);
  ASSERT_EQ(rows_keeping(authd), 1);

  ASSERT_EQ(authd.stop(), 0);
  std::ofstream(c.path, std::ios::trunc) << evil_table(*idp_, true) + "keep-tokens = false\n";
  authd.start();
  ASSERT_TRUE(keeping_at_most(authd, 0));
  EXPECT_EQ(link_id(authd), id);
  EXPECT_EQ(trimmed(authd.sql("SELECT count(*) FROM identities WHERE tokens_kept_at IS NULL")),
            "1");
  EXPECT_FALSE(stored_in_clear(authd, access));
  std::string writer = admin::create_key(authd, "ops");
  EXPECT_EQ(read_tokens(authd, writer, id).status, 404);
  // The line follows the sweep's commit.
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (authd.log_text().find("upstream_tokens_forgotten") == std::string::npos &&
         std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  std::string log = authd.log_text();
  auto line = log.find("upstream_tokens_forgotten");
  ASSERT_NE(line, std::string::npos) << log;
  EXPECT_NE(log.substr(line, log.find('\n', line) - line).find("\"links\":1"), std::string::npos)
      << log;
  // A sign-in through it keeps nothing now.
  ASSERT_FALSE(sign_in(authd).empty());
  EXPECT_EQ(rows_keeping(authd), 0);
}

// 18.5.1: a provider gone from the configuration keeps nothing either; a
// provider still keeping its tokens keeps them across the start.
TEST_F(UpstreamKeptTokens, Interface_18_5_1_AProviderGoneFromTheConfigurationKeepsNothing) {
  Configured c = configured(evil_table(*idp_, true) + "keep-tokens = true\n");
  AuthdProcess authd(c.args);
  ASSERT_FALSE(sign_in(authd).empty());
  std::string access = issued()["access_token"];
  std::string id = link_id(authd);
  kept_for(authd, "retired");
  ASSERT_EQ(rows_keeping(authd), 2);

  ASSERT_EQ(authd.stop(), 0);
  authd.start();  // "retired" is in no [[upstream]] table; "evil" keeps its tokens
  ASSERT_TRUE(keeping_at_most(authd, 1));
  EXPECT_EQ(rows_keeping(authd, "provider = 'evil'"), 1);
  std::string writer = admin::create_key(authd, "ops");
  HttpResponse read = read_tokens(authd, writer, id);
  ASSERT_EQ(read.status, 200) << read.body;
  EXPECT_EQ(read.json()["accessToken"], access);
  EXPECT_EQ(trimmed(authd.sql("SELECT count(*) FROM identities")), "2");  // the links stay
}

// 18.5, 18.2.3, 18.4: a link made while signed in keeps the tokens too;
// the owner's unlink takes them with the link.
TEST_F(UpstreamKeptTokens, Interface_18_5_LinkKeepsThemAndUnlinkRemovesThem) {
  Configured c = configured(evil_table(*idp_, true) + "keep-tokens = true\n");
  AuthdProcess authd(c.args);
  authd.add_user(kEmail, kPassword);
  std::string token = authd.login(kEmail, kPassword);
  ASSERT_FALSE(token.empty());
  Browser browser;
  browser.cookies["authd_session"] = token;
  HttpResponse started = send_request(authd.port(), "POST", "/identities/evil",
                                      {{"Authorization", "Bearer " + token}});
  ASSERT_EQ(started.status, 200) << started.body;
  browser.keep(started);
  HttpResponse back = browser.get(authd, through_idp(started.json()["location"]));
  ASSERT_EQ(back.status, 302) << back.body;
  std::string id = link_id(authd);
  std::string writer = admin::create_key(authd, "ops");
  HttpResponse read = read_tokens(authd, writer, id);
  ASSERT_EQ(read.status, 200) << read.body;
  EXPECT_EQ(read.json()["accessToken"], issued()["access_token"]);

  HttpResponse unlinked = send_request(authd.port(), "DELETE", "/identities/" + id,
                                       {{"Authorization", "Bearer " + token}});
  ASSERT_EQ(unlinked.status, 204) << unlinked.body;
  EXPECT_EQ(read_tokens(authd, writer, id).status, 404);
  EXPECT_EQ(rows_keeping(authd), 0);
}

// 12.2.3: during a key rotation `authd mfa reseal` seals the kept tokens
// anew with the new key, as it does the TOTP secrets, so that they still
// open once the previous key is dropped.
TEST_F(UpstreamKeptTokens, Interface_12_2_3_ResealSealsTheKeptTokensWithTheNewKey) {
  Configured c = configured(evil_table(*idp_, true) + "keep-tokens = true\n");
  AuthdProcess authd(c.args);
  ASSERT_FALSE(sign_in(authd).empty());
  std::string access = issued()["access_token"];
  std::string id = link_id(authd);
  std::string old_key = on_postgres() ? postgres_secret_key_file() : authd.database_path() + ".key";
  std::string new_key = authd.directory() + "/new.key";
  ASSERT_EQ(run_shell("umask 077 && openssl rand -hex 32 > " + shell_quote(new_key)).exit_code, 0);
  authd.stop();

  std::string out = resealed(authd, new_key, old_key, 0);
  EXPECT_NE(out.find("resealed 1, unreadable 0"), std::string::npos) << out;
  out = resealed(authd, new_key, "", 0);
  EXPECT_NE(out.find("resealed 0, unreadable 0"), std::string::npos) << out;

  std::vector<std::string> new_only = c.args;
  new_only.insert(new_only.end(), {"--secret-key-file", new_key});
  AuthdProcess after(new_only, authd.database_url());
  HttpResponse read = read_tokens(after, admin::create_key(after, "ops"), id);
  ASSERT_EQ(read.status, 200) << read.body;
  EXPECT_EQ(read.json()["accessToken"], access);
}

// 12.2.3: reseal pages through every link in batches (of 100) and passes
// over what does not open instead of reading it again: 250 copies of one
// link's sealed text on other links (sealed for another link's id, they do
// not open) are each counted once, on both runs.
TEST_F(UpstreamKeptTokens, Interface_12_2_3_ResealVisitsEveryLinkPastOneBatch) {
  Configured c = configured(evil_table(*idp_, true) + "keep-tokens = true\n");
  AuthdProcess authd(c.args);
  ASSERT_FALSE(sign_in(authd).empty());
  std::string id = link_id(authd);
  authd.sql(
      "WITH RECURSIVE n (i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 250) "
      "INSERT INTO identities (id, user_id, provider, subject, email, created_at, kept_tokens, "
      "tokens_kept_at) SELECT 'copy-' || CAST(i AS TEXT), l.user_id, 'evil', "
      "'copy-' || CAST(i AS TEXT), NULL, 1, l.kept_tokens, 1 FROM n, identities l "
      "WHERE l.id = '" +
      id + "'");
  ASSERT_EQ(rows_keeping(authd), 251);
  std::string old_key = on_postgres() ? postgres_secret_key_file() : authd.database_path() + ".key";
  std::string new_key = authd.directory() + "/new.key";
  ASSERT_EQ(run_shell("umask 077 && openssl rand -hex 32 > " + shell_quote(new_key)).exit_code, 0);
  authd.stop();

  std::string out = resealed(authd, new_key, old_key, 1);
  EXPECT_NE(out.find("resealed 1, unreadable 250"), std::string::npos) << out;
  out = resealed(authd, new_key, old_key, 1);
  EXPECT_NE(out.find("resealed 0, unreadable 250"), std::string::npos) << out;
}

// 18.5, 18.4.3, 10.4.13: the operator's unlink and the account's erasure
// take the kept tokens with the link.
TEST_F(UpstreamKeptTokens, Interface_18_5_AdminUnlinkAndErasureRemoveThem) {
  Configured c = configured(evil_table(*idp_, true) + "keep-tokens = true\n");
  AuthdProcess authd(c.args);
  std::string writer = admin::create_key(authd, "ops");
  ASSERT_FALSE(sign_in(authd).empty());
  std::string id = link_id(authd);
  ASSERT_EQ(read_tokens(authd, writer, id).status, 200);
  ASSERT_EQ(admin::call(authd, writer, "DELETE", "/admin/identities/" + id).status, 204);
  EXPECT_EQ(read_tokens(authd, writer, id).status, 404);
  EXPECT_EQ(rows_keeping(authd), 0);

  ASSERT_FALSE(sign_in(authd).empty());  // links again (both e-mails verified)
  std::string again = link_id(authd);
  std::string access = issued()["access_token"];
  ASSERT_EQ(read_tokens(authd, writer, again).status, 200);
  std::string user = trimmed(authd.sql("SELECT user_id FROM identities"));
  ASSERT_EQ(admin::call(authd, writer, "DELETE", "/admin/users/" + user).status, 204);
  EXPECT_EQ(read_tokens(authd, writer, again).status, 404);
  EXPECT_EQ(trimmed(authd.sql("SELECT count(*) FROM identities")), "0");
  EXPECT_FALSE(stored_in_clear(authd, access));
}

// 18.5 with an oauth2 provider (GitHub's shape): its answer has no refresh
// token, ID token nor expiry, and the route leaves them out or null.
TEST(UpstreamKeptTokensGithub, Interface_18_5_Oauth2ProviderTokensAreKept) {
  UpstreamDouble gh("github_double.mjs", "authd-github", kGithubCallback);
  Configured c = configured(github_table(gh) + "keep-tokens = true\n");
  AuthdProcess authd(c.args);
  Browser browser;
  HttpResponse started = browser.get(authd, "/signin/github");
  ASSERT_EQ(started.status, 302);
  ASSERT_EQ(browser.get(authd, through_github(started.header("Location"), "private")).status, 302);

  std::string id = trimmed(authd.sql("SELECT id FROM identities"));
  std::string writer = admin::create_key(authd, "ops");
  HttpResponse read = read_tokens(authd, writer, id);
  ASSERT_EQ(read.status, 200) << read.body;
  nlohmann::json kept = read.json();
  EXPECT_EQ(kept["tokenType"], "bearer");
  EXPECT_EQ(kept["scope"], "read:user user:email");
  EXPECT_TRUE(kept["expiresAt"].is_null());
  EXPECT_FALSE(kept.contains("refreshToken"));
  EXPECT_FALSE(kept.contains("idToken"));
  std::string access = kept["accessToken"];
  ASSERT_FALSE(access.empty());
  EXPECT_FALSE(stored_in_clear(authd, access));
  SplitUrl user = split_url(gh.base() + "/user");
  // It is the token the double issued: its API answers it (GitHub's wants a User-Agent).
  EXPECT_EQ(send_request(user.port, "GET", user.target,
                         {{"Authorization", "Bearer " + access}, {"User-Agent", "authd-test"}})
                .status,
            200);
}

}  // namespace
}  // namespace authd::test::kept_tokens
