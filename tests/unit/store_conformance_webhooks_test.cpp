// The store conformance suite for the webhook queue (interface.md 14.4):
// claims under a lease, marks that hold only under that lease, attempts,
// dead letters and their retry, run unchanged on SQLite and on PostgreSQL
// (the PostgreSQL cases skip unless AUTHD_TEST_POSTGRES names a server).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "store_conformance_fixture.hpp"

namespace authd {
namespace {

template <class Backend>
class StoreConformanceWebhooks : public StoreConformanceFixture<Backend> {
 protected:
  // Appends an event at `at`, the database first told to queue deliveries
  // (`to_webhooks`) or not.
  EventRecord append(const std::string& type, Millis at, bool to_webhooks = true) {
    EventRecord event;
    event.id = new_uuid_v7(at);
    event.at = at;
    event.type = type;
    event.user_id = new_uuid_v7(at);
    event.actor = "cli";
    event.detail = R"({"reason":"test"})";
    this->write([&](Transaction& tx) {
      tx.webhooks().set_delivering(to_webhooks);
      event.seq = tx.events().append(event);
    });
    return event;
  }

  std::optional<WebhookDeliveryRecord> claim(Millis now, Millis lease_until) {
    std::optional<WebhookDeliveryRecord> claimed;
    this->write([&](Transaction& tx) { claimed = tx.webhooks().claim_due(now, lease_until); });
    return claimed;
  }

  std::pair<std::int64_t, std::int64_t> pending_and_dead() {
    std::pair<std::int64_t, std::int64_t> counts;
    this->read([&](Transaction& tx) {
      counts = {tx.webhooks().pending_count(), tx.webhooks().dead_count()};
    });
    return counts;
  }
};

using Backends = ::testing::Types<OnSqlite, OnPostgres>;
TYPED_TEST_SUITE(StoreConformanceWebhooks, Backends);

// interface.md 14.4: an event appended for webhooks is queued, due at its
// own time, and claimed with every field of the event; one appended without
// them is not queued.
TYPED_TEST(StoreConformanceWebhooks, Interface_14_4_AnAppendedEventIsQueuedAndClaimedWhole) {
  EventRecord quiet = this->append("user.updated", 1'000, /*to_webhooks=*/false);
  EventRecord event = this->append("user.created", 2'000);
  EXPECT_EQ(this->pending_and_dead(), std::make_pair(std::int64_t{1}, std::int64_t{0}));
  EXPECT_FALSE(this->claim(1'999, 60'000)) << "not due before the event's time";
  auto claimed = this->claim(2'000, 60'000);
  ASSERT_TRUE(claimed);
  EXPECT_EQ(claimed->event.seq, event.seq);
  EXPECT_NE(claimed->event.seq, quiet.seq);
  EXPECT_EQ(claimed->event.id, event.id);
  EXPECT_EQ(claimed->event.at, 2'000);
  EXPECT_EQ(claimed->event.type, "user.created");
  EXPECT_EQ(claimed->event.user_id, event.user_id);
  EXPECT_EQ(claimed->event.actor, "cli");
  EXPECT_FALSE(claimed->event.client_address);
  EXPECT_EQ(claimed->event.detail, R"({"reason":"test"})");
  EXPECT_EQ(claimed->attempts, 0);
  EXPECT_FALSE(claimed->delivered_at);
  EXPECT_FALSE(claimed->dead_at);
}

// interface.md 14.4: a claimed delivery is not claimed again while its
// lease runs, is claimed again once it has run out (its instance died), and
// deliveries come oldest first.
TYPED_TEST(StoreConformanceWebhooks, Interface_14_4_AClaimHoldsUntilItsLeaseRunsOut) {
  EventRecord first = this->append("login.succeeded", 1'000);
  EventRecord second = this->append("logout", 1'500);
  auto a = this->claim(3'000, 10'000);
  auto b = this->claim(3'000, 10'000);
  ASSERT_TRUE(a && b);
  EXPECT_EQ(a->event.seq, first.seq);
  EXPECT_EQ(b->event.seq, second.seq);
  EXPECT_FALSE(this->claim(9'999, 20'000)) << "both held";
  auto again = this->claim(10'000, 20'000);
  ASSERT_TRUE(again);
  EXPECT_EQ(again->event.seq, first.seq);
  // The old claim's lease is gone: its mark is refused, the new one's holds.
  this->write([&](Transaction& tx) {
    EXPECT_FALSE(tx.webhooks().mark_delivered(first.seq, 11'000, 10'000));
    EXPECT_TRUE(tx.webhooks().mark_delivered(first.seq, 11'000, 20'000));
    EXPECT_FALSE(tx.webhooks().mark_delivered(first.seq, 11'000, 20'000)) << "already";
  });
  EXPECT_EQ(this->pending_and_dead(), std::make_pair(std::int64_t{1}, std::int64_t{0}));
  auto other = this->claim(100'000, 200'000);  // the second's lease ran out too
  ASSERT_TRUE(other);
  EXPECT_EQ(other->event.seq, second.seq);
}

// interface.md 14.4: a failed attempt is counted, its lease released and
// the delivery due again at the time given; a worker whose lease ran out
// cannot reschedule or kill a delivery another claim holds.
TYPED_TEST(StoreConformanceWebhooks, Interface_14_4_AFailedAttemptIsRescheduledUnderItsLeaseOnly) {
  EventRecord event = this->append("logout", 1'000);
  ASSERT_TRUE(this->claim(1'000, 5'000));
  this->write([&](Transaction& tx) {
    EXPECT_FALSE(tx.webhooks().reschedule(event.seq, 4'000, 1, 7'000, "HTTP 500"))
        << "another lease";
    EXPECT_TRUE(tx.webhooks().reschedule(event.seq, 5'000, 1, 7'000, "HTTP 500"));
  });
  EXPECT_FALSE(this->claim(6'999, 60'000)) << "backing off";
  auto retried = this->claim(7'000, 60'000);
  ASSERT_TRUE(retried);
  EXPECT_EQ(retried->attempts, 1);
  EXPECT_EQ(retried->last_error, "HTTP 500");
  this->write([&](Transaction& tx) {
    EXPECT_FALSE(tx.webhooks().mark_dead(event.seq, 5'000, 2, 8'000, "HTTP 502")) << "stale lease";
  });
  EXPECT_EQ(this->pending_and_dead(), std::make_pair(std::int64_t{1}, std::int64_t{0}));
}

// interface.md 14.4: a dead delivery is never claimed, is listed with its
// event, attempts and last error, and is due again, with a fresh count,
// once retried; delivered ones are neither dead nor retried.
TYPED_TEST(StoreConformanceWebhooks, Interface_14_4_DeadDeliveriesAreListedAndRetried) {
  EventRecord dead1 = this->append("login.failed", 1'000);
  EventRecord delivered = this->append("login.succeeded", 1'100);
  EventRecord dead2 = this->append("logout", 1'200);
  for (const EventRecord* event : {&dead1, &delivered, &dead2}) {
    auto claimed = this->claim(2'000, 9'000);
    ASSERT_TRUE(claimed);
    ASSERT_EQ(claimed->event.seq, event->seq);
  }
  this->write([&](Transaction& tx) {
    EXPECT_TRUE(tx.webhooks().mark_dead(dead1.seq, 9'000, 12, 3'000, "HTTP 500"));
    EXPECT_TRUE(tx.webhooks().mark_delivered(delivered.seq, 3'000, 9'000));
    EXPECT_TRUE(tx.webhooks().mark_dead(dead2.seq, 9'000, 12, 3'100, "Couldn't connect to server"));
  });
  EXPECT_EQ(this->pending_and_dead(), std::make_pair(std::int64_t{0}, std::int64_t{2}));
  EXPECT_FALSE(this->claim(1'000'000, 2'000'000)) << "dead and delivered are never claimed";
  this->read([&](Transaction& tx) {
    std::vector<WebhookDeliveryRecord> dead = tx.webhooks().dead(10);
    ASSERT_EQ(dead.size(), 2u);
    EXPECT_EQ(dead[0].event.id, dead1.id);  // oldest first
    EXPECT_EQ(dead[0].event.type, "login.failed");
    EXPECT_EQ(dead[0].attempts, 12);
    EXPECT_EQ(dead[0].last_error, "HTTP 500");
    EXPECT_EQ(dead[0].dead_at, 3'000);
    EXPECT_EQ(dead[1].event.id, dead2.id);
    EXPECT_EQ(tx.webhooks().dead(1).size(), 1u);
  });
  this->write([&](Transaction& tx) { EXPECT_EQ(tx.webhooks().retry_dead(50'000), 2); });
  EXPECT_EQ(this->pending_and_dead(), std::make_pair(std::int64_t{2}, std::int64_t{0}));
  EXPECT_FALSE(this->claim(49'999, 100'000)) << "due from the retry on";
  auto retried = this->claim(50'000, 100'000);
  ASSERT_TRUE(retried);
  EXPECT_EQ(retried->event.seq, dead1.seq);
  EXPECT_EQ(retried->attempts, 0);
  this->write([&](Transaction& tx) { EXPECT_EQ(tx.webhooks().retry_dead(60'000), 0); });
}

// interface.md 14.4: pruning an event after the retention removes its
// delivery with it.
TYPED_TEST(StoreConformanceWebhooks, Interface_14_4_PruningAnEventRemovesItsDelivery) {
  this->append("logout", 1'000);
  EventRecord kept = this->append("logout", 5'000);
  this->write([&](Transaction& tx) { EXPECT_EQ(tx.events().prune(2'000), 1); });
  EXPECT_EQ(this->pending_and_dead(), std::make_pair(std::int64_t{1}, std::int64_t{0}));
  auto claimed = this->claim(10'000, 20'000);
  ASSERT_TRUE(claimed);
  EXPECT_EQ(claimed->event.seq, kept.seq);
}

// interface.md 14.4: the database, not the writer, says whether an event
// is queued; one written while it said no is not queued when it says yes.
TYPED_TEST(StoreConformanceWebhooks, Interface_14_4_TheDatabaseSaysWhetherAnEventIsQueued) {
  EventRecord before = this->append("user.created", 1'000, /*to_webhooks=*/false);
  EventRecord after = this->append("user.created", 2'000, /*to_webhooks=*/true);
  EXPECT_EQ(this->pending_and_dead(), std::make_pair(std::int64_t{1}, std::int64_t{0}));
  auto claimed = this->claim(10'000, 20'000);
  ASSERT_TRUE(claimed);
  EXPECT_EQ(claimed->event.seq, after.seq);
  EXPECT_FALSE(this->claim(10'000, 20'000)) << "event " << before.seq << " was queued";
  this->write([&](Transaction& tx) {
    EXPECT_TRUE(tx.webhooks().set_delivering(false)) << "it was on";
    EXPECT_FALSE(tx.webhooks().set_delivering(false)) << "it was off";
  });
}

// interface.md 14.4: past the bound, the oldest pending login.failed
// deliveries go, as many as are over, never one held by a worker nor
// another type; with none of them left, nothing more goes.
TYPED_TEST(StoreConformanceWebhooks, Interface_14_4_PastTheBoundTheOldestLoginFailedAreDropped) {
  EventRecord held = this->append("login.failed", 1'000);
  EventRecord oldest = this->append("login.failed", 1'100);
  EventRecord deleted = this->append("user.deleted", 1'200);
  EventRecord older = this->append("login.failed", 1'300);
  EventRecord newest = this->append("login.failed", 1'400);
  EventRecord created = this->append("user.created", 1'500);
  ASSERT_EQ(this->claim(2'000, 60'000)->event.seq, held.seq);  // under way until 60'000
  this->write([&](Transaction& tx) { EXPECT_EQ(tx.webhooks().drop_over(4, 2'000), 2); });
  EXPECT_EQ(this->pending_and_dead().first, 4);
  std::vector<std::int64_t> left;
  while (auto claimed = this->claim(3'000, 60'000)) left.push_back(claimed->event.seq);
  EXPECT_EQ(left, (std::vector<std::int64_t>{deleted.seq, newest.seq, created.seq}))
      << "dropped: " << oldest.seq << ", " << older.seq;
  // Every login.failed left is held: nothing more can go.
  this->write([&](Transaction& tx) { EXPECT_EQ(tx.webhooks().drop_over(1, 3'000), 0); });
  EXPECT_EQ(this->pending_and_dead().first, 4);
}

// interface.md 14.1: a throttle key's refusals count in its one open
// event, exactly, until its window closes; its delivery is due after that,
// and carries the final count.
TYPED_TEST(StoreConformanceWebhooks, Interface_14_1_RepeatedRefusalsCountInOneEvent) {
  this->write([&](Transaction& tx) { tx.webhooks().set_delivering(true); });
  EventRecord event;
  event.id = new_uuid_v7(1'000);
  event.at = 1'000;
  event.type = "login.failed";
  event.actor = "self";
  event.detail = R"({"reason":"throttled","count":1})";
  this->write([&](Transaction& tx) {
    EXPECT_FALSE(tx.events().count_repeat("login:email:a@example.com", 1'000));
    tx.events().append_repeated(event, "login:email:a@example.com", 2'000, 2'500);
  });
  for (Millis at : {1'200, 1'999})
    this->write([&](Transaction& tx) {
      EXPECT_TRUE(tx.events().count_repeat("login:email:a@example.com", at)) << at;
    });
  this->write([&](Transaction& tx) {
    EXPECT_FALSE(tx.events().count_repeat("login:email:a@example.com", 2'000)) << "closed";
    EXPECT_FALSE(tx.events().count_repeat("login:email:b@example.com", 1'500)) << "another key";
  });
  EXPECT_FALSE(this->claim(2'499, 60'000)) << "due once the window has closed";
  auto claimed = this->claim(2'500, 60'000);
  ASSERT_TRUE(claimed);
  nlohmann::json detail = nlohmann::json::parse(claimed->event.detail);
  EXPECT_EQ(detail, (nlohmann::json{{"reason", "throttled"}, {"count", 3}}));
  this->write([&](Transaction& tx) {
    EXPECT_EQ(tx.events().prune_repeats(1'999), 0);
    EXPECT_EQ(tx.events().prune_repeats(2'000), 1);
    EXPECT_EQ(tx.events().last_seq(), claimed->event.seq);
  });
}

}  // namespace
}  // namespace authd
