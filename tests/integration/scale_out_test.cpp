// interface.md 8.2 and 8.3 with several instances: two authd processes on
// one PostgreSQL database share sessions, throttling counters and the
// outbox. Skipped in the SQLite run; scripts/test.sh runs them against a
// throw-away PostgreSQL 15 (scripts/with-postgres.sh).
//
// The ScaleOutRestart suite stops and restarts the database server, so
// scripts/test.sh gives it a cluster of its own and runs it serially.
#include <atomic>
#include <latch>
#include <mutex>
#include <set>
#include <thread>

#include <gtest/gtest.h>

#include "contract_support.hpp"
#include "harness.hpp"

namespace authd::test {
namespace {

// Two instances on one fresh database, both with cheap hashing.
struct TwoInstances {
  explicit TwoInstances(std::vector<std::string> extra = {})
      : a(with_fast_hashing(extra)), b(with_fast_hashing(extra), a.database_url()) {}

  static std::vector<std::string> with_fast_hashing(std::vector<std::string> extra) {
    std::vector<std::string> args = fast_hashing();
    args.insert(args.end(), extra.begin(), extra.end());
    return args;
  }

  AuthdProcess a;
  AuthdProcess b;
};

// POSTs `body` to `path` `count` times at once, alternating between the
// two instances; the statuses of the answers.
std::multiset<int> post_all_at_once(TwoInstances& both, const std::string& path,
                                    const std::string& body, int count) {
  std::latch start(count);
  std::mutex mutex;
  std::multiset<int> statuses;
  std::vector<std::thread> clients;
  for (int i = 0; i < count; ++i) {
    clients.emplace_back([&, i] {
      unsigned short port = i % 2 == 0 ? both.a.port() : both.b.port();
      start.arrive_and_wait();
      int status = post_json(port, path, body).status;
      std::lock_guard lock(mutex);
      statuses.insert(status);
    });
  }
  for (auto& client : clients) client.join();
  return statuses;
}

// 8.2: a session opened on one instance is known to the other.
TEST(ScaleOut, Interface_8_2_LoginOnOneInstanceMeAndLogoutOnTheOther) {
  AUTHD_POSTGRES_ONLY();
  TwoInstances both;
  both.a.add_user(kEmail, kPassword);
  std::string token = both.a.login(kEmail, kPassword);
  ASSERT_FALSE(token.empty()) << both.a.log_text();

  HttpResponse me = get_with_token(both.b.port(), "/me", token);
  ASSERT_EQ(me.status, 200) << me.body << both.b.log_text();
  EXPECT_EQ(me.json()["email"], kEmail);

  EXPECT_EQ(post_with_token(both.b.port(), "/logout", token).status, 200);
  EXPECT_EQ(get_with_token(both.a.port(), "/me", token).status, 401);
  EXPECT_EQ(get_with_token(both.b.port(), "/me", token).status, 401);
}

// 6 /login 4 across instances: ten failures in all, wherever they land,
// lock the e-mail on both, even when they all arrive at once.
TEST(ScaleOut, Interface_8_2_And_6_Login_4_FailedLoginsAreCountedAcrossInstances) {
  AUTHD_POSTGRES_ONLY();
  TwoInstances both;
  both.a.add_user(kEmail, kPassword);

  constexpr int kAttempts = 24;
  std::multiset<int> statuses =
      post_all_at_once(both, "/login", login_body(kEmail, "wrong password"), kAttempts);
  EXPECT_EQ(statuses.count(401), 10u) << both.a.log_text() << both.b.log_text();
  EXPECT_EQ(statuses.count(429), static_cast<std::size_t>(kAttempts - 10));

  // Locked on both, even for the right password.
  EXPECT_EQ(post_json(both.a.port(), "/login", login_body(kEmail, kPassword)).status, 429);
  EXPECT_EQ(post_json(both.b.port(), "/login", login_body(kEmail, kPassword)).status, 429);
}

// 6 /forgot 5 across instances: /forgot requests share their transactions
// in batches on each instance, and the batches of both lock the same keys
// (this client's, this address's mail limit). Arriving all at once, the
// per-client limit still lets exactly 10 through, the address's limit
// queues exactly 3 mails, and no batch waits for the other in a cycle.
TEST(ScaleOut, Interface_8_2_And_6_Forgot_5_ConcurrentRequestsAreCountedExactlyAcrossInstances) {
  AUTHD_POSTGRES_ONLY();
  TwoInstances both({"--forgot-client-limit", "10/15m", "--reset-mail-limit-short", "3/1m",
                     "--reset-mail-delay", "1h"});
  both.a.add_user(kEmail, kPassword);

  constexpr int kRequests = 24;
  std::multiset<int> statuses =
      post_all_at_once(both, "/forgot", R"({"email":")" + kEmail + R"("})", kRequests);
  EXPECT_EQ(statuses.count(200), 10u) << both.a.log_text() << both.b.log_text();
  EXPECT_EQ(statuses.count(429), static_cast<std::size_t>(kRequests - 10));
  EXPECT_EQ(lines(both.a.sql("select count(*) from throttle_events where key like 'forgot:%'")),
            std::vector<std::string>{"10"});
  EXPECT_EQ(lines(both.a.sql("select count(*) from outbox")), std::vector<std::string>{"3"});
}

// 8.2: the outbox is claimed with FOR UPDATE SKIP LOCKED: with both
// instances' workers polling the same table, every reset request gives
// exactly one mail.
TEST(ScaleOut, Interface_8_2_EachResetMailIsSentOnceWhileBothOutboxWorkersRun) {
  AUTHD_POSTGRES_ONLY();
  // Due at once, so both workers find the same mails due together.
  TwoInstances both({"--reset-mail-delay", "1ms"});
  EXPECT_NE(both.a.log_text().find("outbox_worker_started"), std::string::npos);
  EXPECT_NE(both.b.log_text().find("outbox_worker_started"), std::string::npos);

  // The issue's case first: one /forgot, one mail.
  both.a.add_user(kEmail, kPassword);
  ASSERT_EQ(post_json(both.b.port(), "/forgot", R"({"email":")" + kEmail + R"("})").status, 200);

  constexpr std::size_t kUsers = 20;
  std::vector<std::string> emails = {kEmail};
  for (std::size_t i = 1; i < kUsers; ++i) {
    emails.push_back("user" + std::to_string(i) + "@example.com");
    both.a.add_user(emails.back(), kPassword);
  }
  for (std::size_t i = 1; i < kUsers; ++i) {
    AuthdProcess& to = i % 2 == 0 ? both.a : both.b;
    ASSERT_EQ(post_json(to.port(), "/forgot", R"({"email":")" + emails[i] + R"("})").status, 200);
  }

  auto all_mails = [&] {
    std::vector<std::string> mails = both.a.mails();
    std::vector<std::string> more = both.b.mails();
    mails.insert(mails.end(), more.begin(), more.end());
    return mails;
  };
  ASSERT_TRUE(eventually([&] {
    return lines(both.a.sql("select count(*) from outbox where sent_at is null")) ==
               std::vector<std::string>{"0"} &&
           all_mails().size() >= kUsers;
  })) << both.a.log_text()
      << both.b.log_text();

  std::vector<std::string> mails = all_mails();
  EXPECT_EQ(mails.size(), kUsers);
  std::multiset<std::string> recipients;
  for (const std::string& mail : mails) {
    for (const std::string& email : emails) {
      if (mail.find("To: " + email) != std::string::npos) recipients.insert(email);
    }
  }
  for (const std::string& email : emails) EXPECT_EQ(recipients.count(email), 1u) << email;
  EXPECT_EQ(lines(both.a.sql("select count(*) from outbox where sent_at is not null")),
            std::vector<std::string>{std::to_string(kUsers)});
}

// 8.3 and the fault contract: with the database down, /healthz and the
// requests that need it answer 503 at once, never 500 and never hang; both
// instances come back by themselves when it returns, with every session
// they acknowledged.
TEST(ScaleOutRestart, Interface_8_3_DatabaseDownGives503ThenBothInstancesRecover) {
  AUTHD_POSTGRES_ONLY();
  TwoInstances both;
  both.a.add_user(kEmail, kPassword);
  std::string token = both.a.login(kEmail, kPassword);
  ASSERT_FALSE(token.empty());

  control_postgres({"stop", "-m", "fast"});
  for (AuthdProcess* instance : {&both.a, &both.b}) {
    HttpResponse health = send_request(instance->port(), "GET", "/healthz");
    EXPECT_EQ(health.status, 503) << health.body;
    EXPECT_FALSE(health.header("Retry-After").empty());
    EXPECT_EQ(get_with_token(instance->port(), "/me", token).status, 503);
    HttpResponse login = post_json(instance->port(), "/login", login_body(kEmail, kPassword));
    EXPECT_EQ(login.status, 503) << login.body;
    EXPECT_EQ(login.body, R"({"code":503,"message":"Service Unavailable"})");
  }
  control_postgres({"start"});

  for (AuthdProcess* instance : {&both.a, &both.b}) {
    EXPECT_TRUE(eventually([&] {
      return send_request(instance->port(), "GET", "/healthz").status == 200;
    })) << instance->log_text();
    EXPECT_EQ(get_with_token(instance->port(), "/me", token).status, 200);
  }
  EXPECT_FALSE(both.b.login(kEmail, kPassword).empty());
}

// A database that stops answering (SIGSTOP: a frozen VM, a partition):
// requests answer 503 once --database-timeout has passed, not hang; when it
// answers again, both instances carry on by themselves.
TEST(ScaleOutRestart, Interface_8_3_HungDatabaseGives503AfterTheDeadlineThenRecovers) {
  AUTHD_POSTGRES_ONLY();
  TwoInstances both({"--database-timeout", "1s"});
  both.a.add_user(kEmail, kPassword);
  std::string token = both.a.login(kEmail, kPassword);
  ASSERT_FALSE(token.empty());
  ASSERT_EQ(get_with_token(both.b.port(), "/me", token).status, 200);

  control_postgres({"freeze"});
  for (AuthdProcess* instance : {&both.a, &both.b}) {
    EXPECT_EQ(send_request(instance->port(), "GET", "/healthz").status, 503);
    HttpResponse me = get_with_token(instance->port(), "/me", token);
    EXPECT_EQ(me.status, 503) << me.body;
    EXPECT_FALSE(me.header("Retry-After").empty());
  }
  control_postgres({"thaw"});

  for (AuthdProcess* instance : {&both.a, &both.b}) {
    EXPECT_TRUE(eventually([&] {
      return get_with_token(instance->port(), "/me", token).status == 200;
    })) << instance->log_text();
  }
}

// After a restart every pooled connection is dead. The first request on
// each instance still succeeds: the dead connection is dropped and the
// transaction starts over on a fresh one, even with a pool of one.
TEST(ScaleOutRestart, Interface_8_3_FirstRequestAfterARestartSucceedsEvenWithAPoolOfOne) {
  AUTHD_POSTGRES_ONLY();
  TwoInstances both({"--database-pool-size", "1"});
  both.a.add_user(kEmail, kPassword);
  std::string token = both.a.login(kEmail, kPassword);
  ASSERT_FALSE(token.empty());
  ASSERT_EQ(get_with_token(both.b.port(), "/me", token).status, 200);

  control_postgres({"restart", "-m", "fast"});
  EXPECT_EQ(get_with_token(both.a.port(), "/me", token).status, 200) << both.a.log_text();
  EXPECT_EQ(get_with_token(both.b.port(), "/me", token).status, 200) << both.b.log_text();
}

// A crash-like restart (pg_ctl -m immediate) in the middle of logins and
// logouts on both instances: every request gets 200 or 503 (never a 500,
// never a hang, and no 401 for a session that was acknowledged), both
// instances recover, and every login and logout
// that was acknowledged holds afterwards.
TEST(ScaleOutRestart, Interface_8_3_RestartUnderLoadLosesNothingAcknowledged) {
  AUTHD_POSTGRES_ONLY();
  TwoInstances both;
  both.a.add_user(kEmail, kPassword);

  std::atomic<bool> stop{false};
  std::mutex mutex;
  std::vector<std::string> live;        // login acknowledged, no logout tried
  std::vector<std::string> logged_out;  // logout acknowledged
  std::multiset<int> statuses;
  std::atomic<int> answered{0};
  auto record = [&](int status, std::vector<std::string>* bucket, const std::string& token) {
    std::lock_guard lock(mutex);
    statuses.insert(status);
    if (bucket) bucket->push_back(token);
    ++answered;
  };
  // Logs in; every other session is logged out at once. A logout answered
  // 503 may or may not have committed, so its token is not checked.
  auto client = [&](unsigned short port) {
    for (int round = 0; !stop; ++round) {
      HttpResponse login = post_json(port, "/login", login_body(kEmail, kPassword));
      std::string token = login.status == 200 ? login.header("Authorization").substr(7) : "";
      bool keep = round % 2 == 0;
      record(login.status, login.status == 200 && keep ? &live : nullptr, token);
      if (login.status != 200 || keep) continue;
      int logout = post_with_token(port, "/logout", token).status;
      record(logout, logout == 200 ? &logged_out : nullptr, token);
    }
  };
  std::thread on_a(client, both.a.port());
  std::thread on_b(client, both.b.port());
  ASSERT_TRUE(eventually([&] { return answered >= 20; }));
  control_postgres({"restart", "-m", "immediate"});
  int after_restart = answered;
  // Both recover by themselves: logins succeed again on each.
  for (AuthdProcess* instance : {&both.a, &both.b}) {
    EXPECT_TRUE(eventually([&] { return !instance->login(kEmail, kPassword).empty(); }))
        << instance->log_text();
  }
  EXPECT_TRUE(eventually([&] { return answered >= after_restart + 20; }));
  stop = true;
  on_a.join();
  on_b.join();

  for (int status : statuses) EXPECT_TRUE(status == 200 || status == 503) << status;
  EXPECT_GT(statuses.count(200), 0u);
  for (const std::string& token : live) {
    EXPECT_EQ(get_with_token(both.a.port(), "/me", token).status, 200);
    EXPECT_EQ(get_with_token(both.b.port(), "/me", token).status, 200);
  }
  for (const std::string& token : logged_out) {
    EXPECT_EQ(get_with_token(both.a.port(), "/me", token).status, 401);
    EXPECT_EQ(get_with_token(both.b.port(), "/me", token).status, 401);
  }
}

}  // namespace
}  // namespace authd::test
