// webhooks/webhook_worker: one attempt at a time against a SQLite store,
// with the POST replaced by a recorder (interface.md 14.4). The real POST,
// to a receiver that verifies with an independent implementation, is in
// tests/integration/webhooks_test.cpp.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "auth/events/events.hpp"
#include "crypto/random.hpp"
#include "store/sqlite/sqlite_store.hpp"
#include "temp_directory.hpp"
#include "webhooks/webhook_worker.hpp"

namespace authd {
namespace {

using namespace std::chrono_literals;

struct Post {
  HttpHeaderList headers;
  std::string body;
};

class WebhookWorkerTest : public ::testing::Test {
 protected:
  WebhookWorkerTest() : store_(dir_.file("authd.db")) { store_.migrate(); }

  WebhookWorker worker(int max_attempts, std::int64_t queue_max = 10'000) {
    std::string problem;
    auto key = parse_webhook_secret("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", problem);
    return WebhookWorker(
        store_, std::move(*key),
        {.url = "http://127.0.0.1:9/hook",
         .max_attempts = max_attempts,
         .first_retry = 0ms,
         .queue_max = queue_max},
        [this](const std::string&, const HttpHeaderList& headers, const std::string& body,
               Duration) {
          posts_.push_back({headers, body});
          return HttpPostOutcome{answer_, answer_ == 0 ? "Couldn't connect to server" : ""};
        });
  }

  EventRecord append(const std::string& type = "user.created") {
    EventRecord event;
    Millis now = now_millis();
    event.id = new_uuid_v7(now);
    event.at = now;
    event.type = type;
    event.actor = "cli";
    event.detail = R"({"email":"a***@example.com"})";
    store_.run(Store::Mode::write, [&](Transaction& tx) {
      tx.webhooks().set_delivering(true);
      event.seq = tx.events().append(event);
    });
    return event;
  }

  template <class Read>
  void read(Read&& reading) {
    ASSERT_EQ(store_.run(Store::Mode::read, std::forward<Read>(reading)), StoreStatus::ok);
  }

  static std::string header(const Post& post, const std::string& name) {
    for (const auto& [key, value] : post.headers)
      if (key == name) return value;
    return "";
  }

  test::TempDirectory dir_;
  sqlite::SqliteStore store_;
  std::vector<Post> posts_;
  long answer_ = 204;
};

// interface.md 14.4: the body is the event as event_json shows it, signed
// over its id, the attempt's timestamp and the body; a 2xx delivers it.
TEST_F(WebhookWorkerTest, Interface_14_4_A2xxDeliversTheSignedEvent) {
  WebhookWorker sender = worker(3);
  EventRecord event = append();
  ASSERT_TRUE(sender.deliver_one());
  EXPECT_FALSE(sender.deliver_one()) << "nothing else due";
  ASSERT_EQ(posts_.size(), 1u);
  const Post& post = posts_[0];
  EXPECT_EQ(post.body, event_json(event).dump());
  EXPECT_EQ(header(post, "Content-Type"), "application/json");
  EXPECT_EQ(header(post, "webhook-id"), event.id);
  std::string timestamp = header(post, "webhook-timestamp");
  ASSERT_FALSE(timestamp.empty());
  std::string problem;
  auto key = parse_webhook_secret("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", problem);
  EXPECT_EQ(header(post, "webhook-signature"),
            webhook_signature(*key, event.id, std::stoll(timestamp), post.body));
  EXPECT_EQ(sender.delivered(), 1u);
  read([](Transaction& tx) { EXPECT_EQ(tx.webhooks().pending_count(), 0); });
}

// interface.md 14.4: another status, or no answer, is a failed attempt,
// retried; after --webhook-max-attempts the delivery is dead, with the last
// status or reason (never the receiver's body) kept.
TEST_F(WebhookWorkerTest, Interface_14_4_FailedAttemptsAreRetriedThenDead) {
  WebhookWorker sender = worker(3);
  append();
  answer_ = 500;
  ASSERT_TRUE(sender.deliver_one());
  answer_ = 302;  // a redirect is not followed: failed too
  ASSERT_TRUE(sender.deliver_one());
  answer_ = 0;
  ASSERT_TRUE(sender.deliver_one());
  EXPECT_FALSE(sender.deliver_one()) << "dead: never tried again";
  EXPECT_EQ(posts_.size(), 3u);
  EXPECT_EQ(sender.failed(), 3u);
  EXPECT_EQ(sender.delivered(), 0u);
  read([](Transaction& tx) {
    EXPECT_EQ(tx.webhooks().pending_count(), 0);
    std::vector<WebhookDeliveryRecord> dead = tx.webhooks().dead(10);
    ASSERT_EQ(dead.size(), 1u);
    EXPECT_EQ(dead[0].attempts, 3);
    EXPECT_EQ(dead[0].last_error, "Couldn't connect to server");
  });
}

// interface.md 14.4.5: a pass of the bound drops the oldest pending
// login.failed deliveries past --webhook-queue-max and counts them; the
// other types stay, and a queue within the bound is left alone.
TEST_F(WebhookWorkerTest, Interface_14_4_5_APassOfTheBoundDropsAndCountsTheOldestLoginFailed) {
  WebhookWorker sender = worker(3, /*queue_max=*/2);
  EventRecord oldest = append("login.failed");
  EventRecord deleted = append("user.deleted");
  EventRecord older = append("login.failed");
  EventRecord newest = append("login.failed");
  EXPECT_EQ(sender.trim_queue(), 2);
  EXPECT_EQ(sender.trim_queue(), 0);
  EXPECT_EQ(sender.dropped(), 2u);
  ASSERT_TRUE(sender.deliver_one());
  ASSERT_TRUE(sender.deliver_one());
  EXPECT_FALSE(sender.deliver_one());
  ASSERT_EQ(posts_.size(), 2u);
  EXPECT_EQ(posts_[0].body, event_json(deleted).dump());
  EXPECT_EQ(posts_[1].body, event_json(newest).dump()) << oldest.id << older.id;
}

}  // namespace
}  // namespace authd
