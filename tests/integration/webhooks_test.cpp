// interface.md 14.4: webhooks, through the real binary and a real receiver
// (tests/support/webhook_receiver.mjs) that verifies each delivery with the
// `standardwebhooks` package from npm, not with authd's code. Events are
// queued as a flow queues them (an events row and its delivery row, in one
// statement batch), so that these tests are about delivery alone.
#include <signal.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <thread>

#include <gtest/gtest.h>

#include "admin_support.hpp"
#include "contract_support.hpp"
#include "harness.hpp"
#include "run_authd.hpp"
#include "source_paths.hpp"
#include "webhook_receiver.hpp"

namespace authd::test {
namespace {

// Appends an event of `type`, with its webhook delivery due now, to the
// database of `authd`; returns the event's id.
std::string queue_event(const AuthdProcess& authd, const std::string& type) {
  static int counter = 0;
  long long now = std::chrono::duration_cast<std::chrono::milliseconds>(
                      std::chrono::system_clock::now().time_since_epoch())
                      .count();
  char id[64];
  std::snprintf(id, sizeof id, "0190%08llx-0000-7000-8000-%012d", now % 0xffffffffLL, ++counter);
  authd.sql("INSERT INTO events (id, at, type, user_id, actor, detail) VALUES ('" +
            std::string(id) + "', " + std::to_string(now) + ", '" + type +
            "', NULL, 'cli', '{\"note\":\"queued by a test\"}'); "
            "INSERT INTO webhook_deliveries (event_seq, next_attempt_at) "
            "SELECT seq, at FROM events WHERE id = '" +
            std::string(id) + "';");
  return id;
}

std::vector<std::string> webhook_args(const WebhookReceiver& receiver, const std::string& secret,
                                      std::vector<std::string> more = {}) {
  std::vector<std::string> args = fast_hashing();
  args.insert(args.end(), {"--webhook-url", receiver.url(), "--webhook-secret-file", secret});
  args.insert(args.end(), more.begin(), more.end());
  return args;
}

// Polls /metrics (its store readings are up to 5 s old) until `name` is `value`.
bool metric_reaches(const AuthdProcess& authd, const std::string& name, double value) {
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (std::chrono::steady_clock::now() < deadline) {
    if (metric(authd, name) == value) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  return false;
}

std::string read_secret_text(const std::string& path) {
  std::ifstream in(path);
  std::string text;
  std::getline(in, text);
  return text;
}

std::string temporary_directory() {
  char pattern[] = "/tmp/authd-webhook-secrets-XXXXXX";
  if (::mkdtemp(pattern) == nullptr) throw std::runtime_error("mkdtemp failed");
  return pattern;
}

class Webhooks : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = temporary_directory();
    secret_ = write_webhook_secret(dir_, "webhook.secret");
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  std::string dir_;
  std::string secret_;
};

// 14.4: an event is POSTed as JSON (the event as GET /admin/events shows
// it), with webhook-id its id, and its signature verifies with an
// independent implementation; once delivered it is counted and no longer
// pending.
TEST_F(Webhooks, Interface_14_4_AnEventIsPostedSignedAndVerifiedIndependently) {
  WebhookReceiver receiver(secret_);
  AuthdProcess authd(webhook_args(receiver, secret_));
  std::string id = queue_event(authd, "user.created");
  std::vector<nlohmann::json> got = receiver.wait_for(1);
  ASSERT_EQ(got.size(), 1u) << authd.log_text();
  const nlohmann::json& request = got[0];
  EXPECT_EQ(request["method"], "POST");
  EXPECT_EQ(request["contentType"], "application/json");
  EXPECT_EQ(request["id"], id);
  EXPECT_TRUE(request["verified"].get<bool>()) << request.dump();
  ASSERT_TRUE(request["signature"].get<std::string>().starts_with("v1,"));
  nlohmann::json body = nlohmann::json::parse(request["body"].get<std::string>());
  EXPECT_EQ(body["id"], id);
  EXPECT_EQ(body["type"], "user.created");
  EXPECT_EQ(body["actor"], "cli");
  EXPECT_TRUE(body["userId"].is_null());
  EXPECT_EQ(body["detail"]["note"], "queued by a test");
  for (const char* field : {"time", "clientAddress", "userAgent", "requestId"})
    EXPECT_TRUE(body.contains(field)) << field;
  EXPECT_TRUE(metric_reaches(authd, "authd_webhook_delivered_total", 1));
  EXPECT_TRUE(metric_reaches(authd, "authd_webhook_deliveries_pending", 0));
  // The secret is in no log line.
  std::string key = read_secret_text(secret_);
  EXPECT_EQ(authd.log_text().find(key.substr(6, 20)), std::string::npos);
}

// 14.4 with the flows' own events (14.1.1): a CLI command (given no
// webhook setting: the database says webhooks are on) and a login each
// queue their event in their own transaction; each arrives verified, and
// its body is the event as GET /admin/events shows it.
TEST_F(Webhooks, Interface_14_4_AndFlowEventsOfTheCliAndALoginArriveVerified) {
  WebhookReceiver receiver(secret_);
  AuthdProcess authd(webhook_args(receiver, secret_));
  authd.add_user(kEmail, kPassword);
  ASSERT_FALSE(authd.login(kEmail, kPassword).empty());
  std::vector<nlohmann::json> got = receiver.wait_for(2);
  ASSERT_EQ(got.size(), 2u) << authd.log_text();
  std::string key = admin::create_key(authd, "ops", "read");
  HttpResponse listed = admin::call(authd, key, "GET", "/admin/events?type=login.succeeded");
  ASSERT_EQ(listed.status, 200) << listed.body;
  nlohmann::json login_event = nlohmann::json::parse(listed.body)["events"][0];
  std::set<std::string> types;
  for (const nlohmann::json& request : got) {
    EXPECT_TRUE(request["verified"].get<bool>()) << request.dump();
    nlohmann::json body = nlohmann::json::parse(request["body"].get<std::string>());
    types.insert(body["type"]);
    if (body["type"] == "login.succeeded") {
      EXPECT_EQ(body, login_event);
    }
  }
  EXPECT_EQ(types, (std::set<std::string>{"user.created", "login.succeeded"}));
}

// 14.4, the control of the test above: signed with another secret, the
// independent verification fails (and the receiver's 401 is a failed
// attempt).
TEST_F(Webhooks, Interface_14_4_AnotherSecretFailsTheIndependentVerification) {
  std::string other = write_webhook_secret(dir_, "other.secret");
  WebhookReceiver receiver(other);
  AuthdProcess authd(webhook_args(receiver, secret_, {"--webhook-first-retry", "1h"}));
  queue_event(authd, "logout");
  std::vector<nlohmann::json> got = receiver.wait_for(1);
  ASSERT_EQ(got.size(), 1u) << authd.log_text();
  EXPECT_FALSE(got[0]["verified"].get<bool>());
  EXPECT_NE(got[0]["error"].get<std::string>().find("No matching signature"), std::string::npos)
      << got[0].dump();
  EXPECT_TRUE(metric_reaches(authd, "authd_webhook_failed_attempts_total", 1));
}

// 14.4: a receiver that answers 500 gets retries with growing delays; after
// --webhook-max-attempts the delivery is dead: counted in /metrics, listed
// by `authd webhooks dead` with its attempts and last error, and delivered
// once `authd webhooks retry` makes it due again and the receiver is back.
TEST_F(Webhooks, Interface_14_4_RetriedWithBackoffThenDeadThenRetriedByTheCli) {
  WebhookReceiver receiver(secret_, "500");
  AuthdProcess authd(webhook_args(
      receiver, secret_, {"--webhook-max-attempts", "3", "--webhook-first-retry", "300ms"}));
  std::string id = queue_event(authd, "password.changed");
  ASSERT_TRUE(metric_reaches(authd, "authd_webhook_deliveries_dead", 1)) << authd.log_text();
  std::vector<nlohmann::json> got = receiver.requests();
  ASSERT_EQ(got.size(), 3u);
  for (const auto& request : got) {
    EXPECT_EQ(request["id"], id);
    EXPECT_TRUE(request["verified"].get<bool>());  // every attempt signed afresh
  }
  // The delays double: at least 300 ms, then at least 600 ms.
  long long first = got[0]["receivedAt"], second = got[1]["receivedAt"],
            third = got[2]["receivedAt"];
  EXPECT_GE(second - first, 300);
  EXPECT_GE(third - second, 600);
  EXPECT_EQ(metric(authd, "authd_webhook_failed_attempts_total"), 3);
  EXPECT_EQ(metric(authd, "authd_webhook_deliveries_pending"), 0);

  std::string out;
  ASSERT_EQ(authd.cli({"webhooks", "dead"}, "", &out), 0) << out;
  std::istringstream lines(out);
  std::string line;
  std::vector<nlohmann::json> dead;
  while (std::getline(lines, line))
    if (!line.empty() && line[0] == '{') dead.push_back(nlohmann::json::parse(line));
  ASSERT_EQ(dead.size(), 1u) << out;
  EXPECT_EQ(dead[0]["event"]["id"], id);
  EXPECT_EQ(dead[0]["event"]["type"], "password.changed");
  EXPECT_EQ(dead[0]["attempts"], 3);
  EXPECT_EQ(dead[0]["lastError"], "HTTP 500");
  EXPECT_TRUE(dead[0]["deadAt"].is_string());
  // The receiver's body never reaches the store or the log.
  EXPECT_EQ(out.find("no secrets here"), std::string::npos);
  EXPECT_EQ(authd.log_text().find("no secrets here"), std::string::npos);

  receiver.answer("204");
  ASSERT_EQ(authd.cli({"webhooks", "retry"}, "", &out), 0) << out;
  EXPECT_NE(out.find("retrying 1"), std::string::npos) << out;
  got = receiver.wait_for(4);
  ASSERT_EQ(got.size(), 4u) << authd.log_text();
  EXPECT_EQ(got[3]["id"], id);
  EXPECT_TRUE(got[3]["verified"].get<bool>());
  EXPECT_TRUE(metric_reaches(authd, "authd_webhook_deliveries_dead", 0));
  EXPECT_TRUE(metric_reaches(authd, "authd_webhook_delivered_total", 1));
  ASSERT_EQ(authd.cli({"webhooks", "dead"}, "", &out), 0);
  EXPECT_EQ(out.find('{'), std::string::npos) << out;
}

// 14.4: two instances on one PostgreSQL database deliver every event at
// least once and, claiming under a lease with SKIP LOCKED, once.
TEST_F(Webhooks, Interface_14_4_TwoInstancesDeliverEachEventOnce) {
  AUTHD_POSTGRES_ONLY();
  WebhookReceiver receiver(secret_);
  AuthdProcess first(webhook_args(receiver, secret_));
  AuthdProcess second(webhook_args(receiver, secret_), first.database_url());
  std::set<std::string> queued;
  for (int i = 0; i < 40; ++i)
    queued.insert(queue_event(i % 2 ? first : second, "login.succeeded"));
  std::vector<nlohmann::json> got = receiver.wait_for(queued.size());
  ASSERT_TRUE(metric_reaches(first, "authd_webhook_deliveries_pending", 0));
  got = receiver.requests();
  std::multiset<std::string> ids;
  for (const auto& request : got) {
    EXPECT_TRUE(request["verified"].get<bool>());
    ids.insert(request["id"].get<std::string>());
  }
  for (const std::string& id : queued) EXPECT_EQ(ids.count(id), 1u) << id;
  EXPECT_EQ(got.size(), queued.size());
  EXPECT_EQ(metric(first, "authd_webhook_delivered_total") +
                metric(second, "authd_webhook_delivered_total"),
            static_cast<double>(queued.size()));
}

// 14.4: an instance killed (SIGKILL) while a delivery is under way leaves
// it to be delivered again once its lease has run out: at least once.
TEST_F(Webhooks, Interface_14_4_AnInstanceKilledMidDeliveryIsRedeliveredAfterTheLease) {
  WebhookReceiver receiver(secret_, "hang");
  AuthdProcess authd(
      webhook_args(receiver, secret_, {"--webhook-timeout", "5s", "--webhook-claim-lease", "6s"}));
  std::string id = queue_event(authd, "session.revoked");
  ASSERT_EQ(receiver.wait_for(1).size(), 1u) << authd.log_text();
  authd.kill_hard();
  receiver.answer("204");
  authd.start();
  std::vector<nlohmann::json> got = receiver.wait_for(2);
  ASSERT_EQ(got.size(), 2u) << authd.log_text();
  EXPECT_EQ(got[1]["id"], id);
  EXPECT_TRUE(got[1]["verified"].get<bool>());
  EXPECT_GE(got[1]["receivedAt"].get<long long>() - got[0]["receivedAt"].get<long long>(), 5000)
      << "not before the lease ran out";
  EXPECT_TRUE(metric_reaches(authd, "authd_webhook_deliveries_pending", 0));
}

// 14.4: --webhook-url without a usable secret file stops the start with
// exit status 2 (missing, readable by every user, not a secret), and no
// line quotes the file's content; so does a lease not above the time-out.
TEST_F(Webhooks, Interface_14_4_AWebhookUrlWithoutAUsableSecretStopsTheStart) {
  std::string readable = write_webhook_secret(dir_, "readable.secret");
  std::filesystem::permissions(readable, std::filesystem::perms::others_read,
                               std::filesystem::perm_options::add);
  std::string malformed = dir_ + "/malformed.secret";
  std::ofstream(malformed) << "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef\n";
  std::filesystem::permissions(
      malformed, std::filesystem::perms::owner_read | std::filesystem::perms::owner_write);
  const std::vector<std::vector<std::string>> refused = {
      {"--webhook-url", "http://127.0.0.1:9/hook"},
      {"--webhook-url", "http://127.0.0.1:9/hook", "--webhook-secret-file", dir_ + "/missing"},
      {"--webhook-url", "http://127.0.0.1:9/hook", "--webhook-secret-file", readable},
      {"--webhook-url", "http://127.0.0.1:9/hook", "--webhook-secret-file", malformed},
      {"--webhook-url", "ftp://127.0.0.1/hook", "--webhook-secret-file", secret_},
      {"--webhook-url", "http://127.0.0.1:9/hook", "--webhook-secret-file", secret_,
       "--webhook-timeout", "10s", "--webhook-claim-lease", "10s"},
  };
  for (const auto& args : refused) {
    std::string command = "timeout 30 " + shell_quote(authd_binary()) +
                          " serve --listen 127.0.0.1:0 --admin-listen off --database " +
                          shell_quote("sqlite:" + dir_ + "/authd.db") + " --mail-dir " +
                          shell_quote(dir_ + "/mail");
    for (const auto& arg : args) command += " " + shell_quote(arg);
    CommandResult result = run_shell(command + " 2>&1");
    EXPECT_EQ(result.exit_code, 2) << command << "\n" << result.output;
    EXPECT_NE(result.output.find("bad_configuration"), std::string::npos) << result.output;
    EXPECT_EQ(result.output.find("0123456789abcdef0123"), std::string::npos) << result.output;
    EXPECT_EQ(result.output.find(read_secret_text(readable).substr(6, 20)), std::string::npos);
  }
}

}  // namespace
}  // namespace authd::test
