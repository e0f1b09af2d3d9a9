// interface.md 10.2, 10.4 and 8.2: the admin API with several instances on
// one PostgreSQL database. Skipped in the SQLite run; scripts/test.sh runs
// them against a throw-away PostgreSQL 15 (scripts/with-postgres.sh).
#include <gtest/gtest.h>

#include <atomic>
#include <latch>
#include <mutex>
#include <set>
#include <thread>

#include "admin_support.hpp"
#include "contract_support.hpp"
#include "harness.hpp"

// Inside authd::test::admin, not with a using-directive: the unity build
// puts several test files in one translation unit, and a directive in the
// shared unnamed namespace would reach the files after this one.
namespace authd::test::admin {
namespace {

// `count` instances on one fresh database, with cheap hashing.
struct AdminInstances {
  explicit AdminInstances(int count) {
    servers.push_back(std::make_unique<AuthdProcess>(fast_hashing()));
    for (int i = 1; i < count; ++i)
      servers.push_back(
          std::make_unique<AuthdProcess>(fast_hashing(), servers.front()->database_url()));
  }
  AuthdProcess& operator[](std::size_t i) { return *servers[i]; }
  std::vector<std::unique_ptr<AuthdProcess>> servers;
};

// One page of GET /admin/users; its ids and nextCursor.
std::pair<std::vector<std::string>, nlohmann::json> admin_page_of(const AuthdProcess& authd,
                                                                  const std::string& key,
                                                                  const std::string& query) {
  HttpResponse res = call(authd, key, "GET", "/admin/users" + query);
  EXPECT_EQ(res.status, 200) << query << " -> " << res.body;
  if (res.status != 200) return {{}, nullptr};
  nlohmann::json body = res.json();
  std::vector<std::string> ids;
  for (const nlohmann::json& user : body["users"]) ids.push_back(user["id"]);
  return {ids, body["nextCursor"]};
}

// interface.md 10.4 and 8.2: a user created through one instance's admin
// API logs in through another, and each instance's admin API sees it.
TEST(AdminScaleOut, Interface_10_4_5_And_8_2_UserCreatedOnOneInstanceLogsInOnAnother) {
  AUTHD_POSTGRES_ONLY();
  AdminInstances both(2);
  std::string key = create_key(both[0], "ops", "write");
  nlohmann::json user = create_user(both[0], key, {{"email", kEmail}, {"password", kPassword}});
  ASSERT_TRUE(user.is_object()) << both[0].log_text();
  HttpResponse login = post_json(both[1].port(), "/login", login_body(kEmail, kPassword));
  ASSERT_EQ(login.status, 200) << login.body << both[1].log_text();
  EXPECT_EQ(login.json()["id"], user["id"]);
  nlohmann::json seen = get_user(both[1], key, user["id"]);
  ASSERT_TRUE(seen.is_object());
  EXPECT_TRUE(seen["lastLoginAt"].is_string()) << seen;

  // Changed on the second, effective on the first at once.
  HttpResponse patched =
      call(both[1], key, "PATCH", "/admin/users/" + user["id"].get<std::string>(),
           nlohmann::json{{"disabled", true}});
  ASSERT_EQ(patched.status, 200) << patched.body;
  EXPECT_EQ(post_json(both[0].port(), "/login", login_body(kEmail, kPassword)).status, 403);
  EXPECT_EQ(get_with_token(both[0].port(), "/me", token_of(login)).status, 401);
}

// interface.md 10.4 and 8.2: two instances creating the same e-mail at
// once give exactly one 201 and one 409, round after round; each address
// ends with one account.
TEST(AdminScaleOut, Interface_10_4_5_And_8_2_ConcurrentCreatesOfOneEmailGiveOne201AndOne409) {
  AUTHD_POSTGRES_ONLY();
  AdminInstances both(2);
  std::string key = create_key(both[0], "ops", "write");
  constexpr int kRounds = 30;
  for (int round = 0; round < kRounds; ++round) {
    // Letter case differs between the two: the same canonical address.
    const std::string email = "race" + std::to_string(round) + "@example.com";
    const std::string shouted = "RACE" + std::to_string(round) + "@example.com";
    std::latch start(2);
    int statuses[2] = {0, 0};
    std::string bodies[2];
    std::vector<std::thread> clients;
    for (int i = 0; i < 2; ++i) {
      clients.emplace_back([&, i] {
        nlohmann::json body = {{"email", i == 0 ? email : shouted}, {"password", kPassword}};
        start.arrive_and_wait();
        HttpResponse res = call(both[i], key, "POST", "/admin/users", body);
        statuses[i] = res.status;
        bodies[i] = res.body;
      });
    }
    for (auto& client : clients) client.join();
    std::multiset<int> got = {statuses[0], statuses[1]};
    EXPECT_EQ(got, (std::multiset<int>{201, 409}))
        << "round " << round << ": " << bodies[0] << " / " << bodies[1];
    for (int i = 0; i < 2; ++i)
      if (statuses[i] == 409) {
        EXPECT_EQ(bodies[i], R"({"code":409,"message":"Conflict"})");
      }
  }
  EXPECT_EQ(lines(both[0].sql("select count(*) from users")),
            std::vector<std::string>{std::to_string(kRounds)});
}

// interface.md 10.4 and 8.2: two instances moving two accounts to one new
// e-mail at once: exactly one 200 and one 409 each round (never a 503 from
// the unique index); the address ends with one account.
TEST(AdminScaleOut, Interface_10_4_11_And_8_2_ConcurrentEmailChangesGiveOne200AndOne409) {
  AUTHD_POSTGRES_ONLY();
  AdminInstances both(2);
  std::string key = create_key(both[0], "ops", "write");
  constexpr int kRounds = 20;
  for (int round = 0; round < kRounds; ++round) {
    const std::string r = std::to_string(round);
    nlohmann::json users[2] = {
        create_user(both[0], key, {{"email", "first" + r + "@example.com"}}),
        create_user(both[1], key, {{"email", "second" + r + "@example.com"}})};
    ASSERT_TRUE(users[0].is_object() && users[1].is_object());
    const std::string target = "wanted" + r + "@example.com";
    std::latch start(2);
    HttpResponse answers[2];
    std::vector<std::thread> clients;
    for (int i = 0; i < 2; ++i) {
      clients.emplace_back([&, i] {
        std::string path = "/admin/users/" + users[i]["id"].get<std::string>();
        nlohmann::json body = {{"email", target}};
        start.arrive_and_wait();
        answers[i] = call(both[i], key, "PATCH", path, body);
      });
    }
    for (auto& client : clients) client.join();
    EXPECT_EQ((std::multiset<int>{answers[0].status, answers[1].status}),
              (std::multiset<int>{200, 409}))
        << "round " << round << ": " << answers[0].body << " / " << answers[1].body;
  }
}

// interface.md 10.4 and 8.2: a listing whose pages alternate between two
// instances, while a third creates users, gives every user that existed
// when it began exactly once, in strictly increasing id order.
TEST(AdminScaleOut, Interface_10_4_8_And_8_2_PagingAcrossInstancesWhileAThirdCreatesUsers) {
  AUTHD_POSTGRES_ONLY();
  AdminInstances three(3);
  std::string key = create_key(three[0], "ops", "write");
  std::vector<std::string> before;
  for (int i = 0; i < 150; ++i) {
    nlohmann::json user =
        create_user(three[i % 3], key, {{"email", "early" + std::to_string(i) + "@example.com"}});
    ASSERT_TRUE(user.is_object());
    before.push_back(user["id"]);
  }
  std::set<std::string> existing(before.begin(), before.end());

  std::mutex mutex;
  std::vector<std::string> late;
  std::atomic<bool> started{false};
  std::thread creator([&] {
    for (int i = 0; i < 80; ++i) {
      nlohmann::json user =
          create_user(three[2], key, {{"email", "late" + std::to_string(i) + "@example.com"}});
      if (!user.is_object()) continue;
      std::lock_guard lock(mutex);
      late.push_back(user["id"]);
      started = true;
    }
  });
  ASSERT_TRUE(eventually([&] { return started.load(); }));
  {
    std::lock_guard lock(mutex);
    existing.insert(late.begin(), late.end());
  }
  std::vector<std::string> listed;
  std::string query = "?limit=7";
  for (int n = 0; n < 1000; ++n) {
    auto [ids, next] = admin_page_of(three[n % 2], key, query);
    EXPECT_LE(ids.size(), 7u);
    listed.insert(listed.end(), ids.begin(), ids.end());
    if (!next.is_string()) break;
    query = "?limit=7&cursor=" + url_encode(next.get<std::string>());
  }
  creator.join();

  for (std::size_t i = 1; i < listed.size(); ++i) EXPECT_LT(listed[i - 1], listed[i]) << i;
  std::multiset<std::string> seen(listed.begin(), listed.end());
  for (const std::string& id : existing) EXPECT_EQ(seen.count(id), 1u) << id;
}

// interface.md 10.2 and 8.2: a key made once works on every instance; once
// revoked, every instance refuses it at once with 401 invalid_token.
TEST(AdminScaleOut, Interface_10_2_5_And_8_2_RevokedKeyIsRefusedByEveryInstanceAtOnce) {
  AUTHD_POSTGRES_ONLY();
  AdminInstances both(2);
  std::string key = create_key(both[0], "ops", "write");
  for (int i = 0; i < 2; ++i) ASSERT_EQ(call(both[i], key, "GET", "/admin/users").status, 200);
  KeyCommand revoked = admin_key_command(both[1], {"revoke", "--name", "ops"});
  ASSERT_EQ(revoked.exit_code, 0) << revoked.out << revoked.err;
  for (int i = 0; i < 2; ++i)
    expect_credentials_error(call(both[i], key, "GET", "/admin/users"), 401, kInvalidKey,
                             "instance " + std::to_string(i));
}

// interface.md 10.4 and 8.2: a user deleted through one instance is gone
// for the other at once: its sessions are refused there, its address is
// unknown, and it may be created again through the other.
TEST(AdminScaleOut, Interface_10_4_13_And_8_2_DeleteOnOneInstanceIsSeenByTheOther) {
  AUTHD_POSTGRES_ONLY();
  AdminInstances both(2);
  std::string key = create_key(both[0], "ops", "write");
  nlohmann::json user = create_user(both[0], key, {{"email", kEmail}, {"password", kPassword}});
  ASSERT_TRUE(user.is_object());
  std::string token = both[1].login(kEmail, kPassword);
  ASSERT_FALSE(token.empty());
  ASSERT_EQ(call(both[0], key, "DELETE", "/admin/users/" + user["id"].get<std::string>()).status,
            204);
  EXPECT_EQ(get_with_token(both[1].port(), "/me", token).status, 401);
  EXPECT_EQ(post_json(both[1].port(), "/login", login_body(kEmail, kPassword)).status, 401);
  expect_error(call(both[1], key, "GET", "/admin/users/" + user["id"].get<std::string>()), 404,
               "GET on the other instance");
  nlohmann::json again = create_user(both[1], key, {{"email", kEmail}, {"password", kPassword}});
  ASSERT_TRUE(again.is_object());
  EXPECT_NE(again["id"], user["id"]);
}

}  // namespace
}  // namespace authd::test::admin
