// The audit trail under a flood and its webhooks from every writer
// (interface.md 14.1, 14.4): the 429s of one throttle key and window are
// one login.failed event with their count and one webhook delivery; the
// webhook queue is bounded by dropping the oldest login.failed; an event
// written by the CLI reaches the webhook whether or not the CLI was told
// about webhooks, and whether or not a server was running. Through the real
// binary, on SQLite and PostgreSQL.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "admin_support.hpp"
#include "contract_support.hpp"
#include "harness.hpp"
#include "http_contract_util.hpp"
#include "passkey_support.hpp"
#include "webhook_receiver.hpp"

namespace authd::test::trail_flood {
namespace {

std::string temporary_directory() {
  char pattern[] = "/tmp/authd-trail-flood-XXXXXX";
  if (::mkdtemp(pattern) == nullptr) throw std::runtime_error("mkdtemp failed");
  return pattern;
}

// `count` wrong-password logins for `email` at once, from `threads`
// connections; returns how many were answered `status`.
int flood(const AuthdProcess& authd, const std::string& email, int count, int status) {
  constexpr int kThreads = 4;
  std::atomic<int> answered{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&, t] {
      for (int i = t; i < count; i += kThreads)
        if (post_json(authd.port(), "/login", login_body(email, "wrong password")).status == status)
          ++answered;
    });
  for (std::thread& thread : threads) thread.join();
  return answered.load();
}

nlohmann::json failed_logins(const AuthdProcess& authd, const std::string& key) {
  HttpResponse res = admin::call(authd, key, "GET", "/admin/events?type=login.failed&limit=1000");
  EXPECT_EQ(res.status, 200) << res.body;
  return nlohmann::json::parse(res.body)["events"];
}

std::vector<nlohmann::json> throttled(const nlohmann::json& events) {
  std::vector<nlohmann::json> found;
  for (const nlohmann::json& event : events)
    if (event["detail"]["reason"] == "throttled") found.push_back(event);
  return found;
}

long long now_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

std::string one_value(const AuthdProcess& authd, const std::string& query) {
  std::vector<std::string> rows = lines(authd.sql(query));
  return rows.empty() ? "" : rows[0];
}

// interface.md 14.1: the 429s of one e-mail's window are one login.failed
// event, `throttled`, naming the account, with their exact count (refused
// at once, from several connections); an unknown address's are one event
// with the address masked; the 401s before them keep their own events. The
// trail's metric of events written grows by one event, not by the flood.
TEST(TrailFlood, Interface_14_1_TheThrottledLoginsOfAKeyAndWindowAreOneEventWithTheirCount) {
  std::vector<std::string> args = fast_hashing();
  args.insert(args.end(), {"--login-email-limit", "2/15m"});
  AuthdProcess authd(args);
  const std::string key = admin::create_key(authd, "ops", "read");
  authd.add_user(kEmail, kPassword);
  const std::string user_id = one_value(authd, "select id from users");
  ASSERT_EQ(flood(authd, kEmail, 2, 401), 2);
  ASSERT_EQ(flood(authd, kEmail, 24, 429), 24);
  ASSERT_EQ(flood(authd, "nobody@example.com", 2, 401), 2);
  ASSERT_EQ(flood(authd, "nobody@example.com", 5, 429), 5);

  nlohmann::json events = failed_logins(authd, key);
  EXPECT_EQ(events.size(), 6u) << events.dump(1);  // four 401s, two windows of 429s
  std::vector<nlohmann::json> refused = throttled(events);
  ASSERT_EQ(refused.size(), 2u) << events.dump(1);
  EXPECT_EQ(refused[1]["userId"], user_id);
  EXPECT_EQ(refused[1]["detail"],
            (nlohmann::json{{"reason", "throttled"}, {"throttle", "email"}, {"count", 24}}));
  EXPECT_TRUE(refused[0]["userId"].is_null());
  EXPECT_EQ(refused[0]["detail"], (nlohmann::json{{"reason", "throttled"},
                                                  {"throttle", "email"},
                                                  {"email", "n***@example.com"},
                                                  {"count", 5}}));
  const double written = std::stod(one_value(authd, "select count(*) from events"));
  EXPECT_EQ(written, 8);  // a key, a user, four 401s, two throttled
  EXPECT_TRUE(eventually([&] { return metric(authd, "authd_events_written_total") == written; }))
      << metric(authd, "authd_events_written_total");
}

// interface.md 14.1 on several instances: the 429s of one e-mail sent to
// two instances at once are still one event with their exact count.
TEST(TrailFlood, Interface_14_1_TwoInstancesCountOneKeysRefusalsInOneEvent) {
  AUTHD_POSTGRES_ONLY();
  std::vector<std::string> args = fast_hashing();
  args.insert(args.end(), {"--login-email-limit", "2/15m"});
  AuthdProcess first(args);
  AuthdProcess second(args, first.database_url());
  const std::string key = admin::create_key(first, "ops", "read");
  ASSERT_EQ(flood(first, kEmail, 2, 401), 2);
  std::atomic<int> refused{0};
  std::thread other([&] { refused += flood(second, kEmail, 20, 429); });
  refused += flood(first, kEmail, 20, 429);
  other.join();
  ASSERT_EQ(refused.load(), 40);
  std::vector<nlohmann::json> events = throttled(failed_logins(first, key));
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0]["detail"]["count"], 40);
}

// interface.md 14.1: once a client is throttled, its 429s for any address
// count in one event of the client, which names no account.
TEST(TrailFlood, Interface_14_1_AThrottledClientsRefusalsAreOneEventOfTheClient) {
  std::vector<std::string> args = fast_hashing();
  args.insert(args.end(), {"--login-client-limit", "3/15m"});
  AuthdProcess authd(args);
  const std::string key = admin::create_key(authd, "ops", "read");
  for (int i = 0; i < 3; ++i)
    ASSERT_EQ(flood(authd, "guess" + std::to_string(i) + "@example.com", 1, 401), 1);
  int refused = 0;
  for (int i = 3; i < 13; ++i)
    refused += flood(authd, "guess" + std::to_string(i) + "@example.com", 1, 429);
  ASSERT_EQ(refused, 10);
  std::vector<nlohmann::json> events = throttled(failed_logins(authd, key));
  ASSERT_EQ(events.size(), 1u);
  EXPECT_TRUE(events[0]["userId"].is_null());
  EXPECT_EQ(events[0]["clientAddress"], "127.0.0.1");
  EXPECT_EQ(events[0]["detail"],
            (nlohmann::json{{"reason", "throttled"}, {"throttle", "client"}, {"count", 10}}));
}

// interface.md 14.1, 16.3.2: passkey sign-ins refused by the client's
// throttle count in the client's one event, with the client's /login 429s.
TEST(TrailFlood, Interface_14_1_RefusedPasskeySignInsCountInTheClientsEvent) {
  AuthdProcess authd(passkey_args({"--login-client-limit", "3/15m"}));
  authd.add_user(kEmail, kPassword);
  SoftAuthenticator device;
  ASSERT_EQ(register_with(authd, authd.login(kEmail, kPassword), device).status, 201);
  nlohmann::json made_up = {{"challenge", test_support::to_base64url(std::string(32, 'y'))},
                            {"rpId", kRpId}};
  nlohmann::json sign_in = {{"credential", device.get(made_up, kOrigin)}};
  for (int i = 0; i < 3; ++i)
    ASSERT_EQ(post_json(authd.port(), "/webauthn/login", sign_in.dump()).status, 401);
  for (int i = 0; i < 5; ++i)
    ASSERT_EQ(post_json(authd.port(), "/webauthn/login", sign_in.dump()).status, 429);
  ASSERT_EQ(flood(authd, kEmail, 2, 429), 2);
  std::vector<nlohmann::json> events =
      throttled(nlohmann::json(events_of_type(authd, "login.failed")));
  ASSERT_EQ(events.size(), 1u);
  EXPECT_TRUE(events[0]["userId"].is_null());
  EXPECT_EQ(events[0]["detail"],
            (nlohmann::json{{"reason", "throttled"}, {"throttle", "client"}, {"count", 7}}));
}

class TrailFloodWebhooks : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = temporary_directory();
    secret_ = write_webhook_secret(dir_, "webhook.secret");
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  std::vector<std::string> webhook_args(const WebhookReceiver& receiver,
                                        std::vector<std::string> more = {}) const {
    std::vector<std::string> args = fast_hashing();
    args.insert(args.end(), {"--webhook-url", receiver.url(), "--webhook-secret-file", secret_});
    args.insert(args.end(), more.begin(), more.end());
    return args;
  }

  std::string dir_;
  std::string secret_;
};

nlohmann::json body_of(const nlohmann::json& request) {
  return nlohmann::json::parse(request["body"].get<std::string>());
}

// interface.md 14.1, 14.4: a flood of 429s while the receiver hangs queues
// one delivery for its window, not one per request; once the window has
// closed it is delivered with the flood's count.
TEST_F(TrailFloodWebhooks, Interface_14_4_AThrottledFloodWithAHangingReceiverQueuesOneDelivery) {
  WebhookReceiver receiver(secret_, "hang");
  AuthdProcess authd(
      webhook_args(receiver, {"--login-email-limit", "1/2s", "--webhook-timeout", "1s",
                              "--webhook-claim-lease", "2s", "--webhook-first-retry", "200ms"}));
  authd.add_user(kEmail, kPassword);
  ASSERT_EQ(flood(authd, kEmail, 1, 401), 1);
  ASSERT_EQ(flood(authd, kEmail, 40, 429), 40);
  EXPECT_EQ(one_value(authd, "select count(*) from webhook_deliveries"), "3")
      << "user.created, one 401, one window of 429s";
  EXPECT_EQ(one_value(authd, "select count(*) from events"), "3");

  receiver.answer("204");
  nlohmann::json delivered;
  EXPECT_TRUE(eventually([&] {
    for (const nlohmann::json& request : receiver.requests())
      if (request["answer"] != "hang" && body_of(request)["detail"]["reason"] == "throttled")
        delivered = body_of(request);
    return !delivered.is_null();
  })) << authd.log_text();
  EXPECT_EQ(delivered["detail"]["count"], 40) << delivered.dump();
}

// Queues an event of each of `types`, oldest first, with its delivery due
// in an hour (so that no worker holds it), in one statement batch: the
// bound's pass sees all of them or none.
void queue_later(const AuthdProcess& authd, const std::vector<std::string>& types) {
  static int counter = 0;
  std::string script;
  for (const std::string& type : types) {
    const std::string id = "queued-" + std::to_string(++counter);
    script += "INSERT INTO events (id, at, type, actor, detail) VALUES ('" + id + "', 1000, '" +
              type +
              "', 'cli', '{}'); "
              "INSERT INTO webhook_deliveries (event_seq, next_attempt_at) "
              "SELECT seq, " +
              std::to_string(now_ms() + 3'600'000) + " FROM events WHERE id = '" + id + "'; ";
  }
  authd.sql(script);
}

// interface.md 14.4: past --webhook-queue-max the oldest pending
// login.failed deliveries are dropped, counted and logged, while the
// receiver hangs; other events are never dropped for them, even past the
// bound; the trail keeps every event.
TEST_F(TrailFloodWebhooks, Interface_14_4_PastTheQueueMaxTheOldestLoginFailedAreDropped) {
  WebhookReceiver receiver(secret_, "hang");
  AuthdProcess authd(webhook_args(receiver, {"--webhook-queue-max", "3"}));
  const std::string pending =
      "select e.id || ' ' || e.type from webhook_deliveries d join events e "
      "on e.seq = d.event_seq where d.delivered_at is null and d.dead_at is null order by e.seq";
  queue_later(authd, {"user.deleted", "login.failed", "login.failed", "login.failed",
                      "password.changed", "login.failed", "login.failed"});
  EXPECT_TRUE(eventually([&] { return metric(authd, "authd_webhook_dropped_total") == 4; }))
      << authd.log_text();
  EXPECT_EQ(lines(authd.sql(pending)),
            (std::vector<std::string>{"queued-1 user.deleted", "queued-5 password.changed",
                                      "queued-7 login.failed"}));
  EXPECT_NE(authd.log_text().find("webhook_deliveries_dropped"), std::string::npos);
  EXPECT_EQ(one_value(authd, "select count(*) from events where type = 'login.failed'"), "5")
      << "the trail keeps every event";

  queue_later(authd, {"user.created", "user.created", "user.created"});
  EXPECT_TRUE(eventually([&] {
    return authd.log_text().find("webhook_queue_over_max") != std::string::npos;
  })) << authd.log_text();
  EXPECT_EQ(metric(authd, "authd_webhook_dropped_total"), 5);
  EXPECT_EQ(lines(authd.sql(pending)),
            (std::vector<std::string>{"queued-1 user.deleted", "queued-5 password.changed",
                                      "queued-8 user.created", "queued-9 user.created",
                                      "queued-10 user.created"}));
}

// interface.md 14.4: every event reaches the webhook whichever process
// wrote it: `authd user add` without --webhook-url while the server runs,
// and while no server runs (delivered once one starts). An event written
// before any server delivered webhooks is not sent to a new receiver; a
// server started without --webhook-url turns them off, with a warning.
TEST_F(TrailFloodWebhooks, Interface_14_4_AnEventOfTheCliReachesTheWebhookWhateverItsFlags) {
  AuthdProcess before(fast_hashing());
  before.add_user("before@example.com", kPassword);
  ASSERT_EQ(before.stop(), 0);
  WebhookReceiver receiver(secret_);
  AuthdProcess authd(webhook_args(receiver), before.database_url());
  authd.add_user("running@example.com", kPassword);  // no --webhook-url
  ASSERT_EQ(receiver.wait_for(1).size(), 1u) << authd.log_text();
  ASSERT_EQ(authd.stop(), 0);
  authd.add_user("stopped@example.com", kPassword);
  authd.start();
  std::vector<nlohmann::json> got = receiver.wait_for(2);
  ASSERT_EQ(got.size(), 2u) << authd.log_text();
  for (std::size_t i = 0; i < got.size(); ++i) {
    EXPECT_TRUE(got[i]["verified"].get<bool>());
    nlohmann::json body = body_of(got[i]);
    EXPECT_EQ(body["type"], "user.created");
    EXPECT_EQ(body["actor"], "cli");
    const char* email = i == 0 ? "running@example.com" : "stopped@example.com";
    EXPECT_EQ(body["userId"],
              one_value(authd, std::string("select id from users where email = '") + email + "'"));
  }
  EXPECT_EQ(one_value(authd, "select count(*) from webhook_deliveries"), "2")
      << "the event written before webhooks was queued";

  // An instance without --webhook-url turns them off for every writer, and
  // says so.
  ASSERT_EQ(authd.stop(), 0);
  AuthdProcess without(fast_hashing(), before.database_url());
  EXPECT_NE(without.log_text().find("webhooks_turned_off"), std::string::npos);
  without.add_user("after@example.com", kPassword);
  EXPECT_EQ(one_value(authd, "select count(*) from webhook_deliveries"), "2");
}

// interface.md 14.4: only a start that succeeds records whether webhooks
// are on. A server that fails its start checks (here a secret file that
// does not exist) turns them neither on, with nobody to deliver, nor off
// for the other writers.
TEST_F(TrailFloodWebhooks, Interface_14_4_AStartThatFailsLeavesTheWebhookSwitchAsItWas) {
  AuthdProcess authd(fast_hashing());
  ASSERT_EQ(authd.stop(), 0);
  std::string output;
  EXPECT_EQ(
      authd.cli({"serve", "--listen", "127.0.0.1:0", "--admin-listen", "off", "--webhook-url",
                 "http://127.0.0.1:9/hook", "--webhook-secret-file", "/nonexistent/webhook-secret"},
                "", &output),
      2)
      << output;
  authd.add_user("after@example.com", kPassword);
  EXPECT_EQ(one_value(authd, "select count(*) from webhook_deliveries"), "0")
      << "the failed start turned webhooks on";
}

}  // namespace
}  // namespace authd::test::trail_flood
