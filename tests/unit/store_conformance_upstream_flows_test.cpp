// The store conformance suite for the upstream flows area (interface.md
// 18.2), run unchanged on SQLite and on PostgreSQL (the PostgreSQL cases
// skip unless AUTHD_TEST_POSTGRES names a server): a flow reads back whole
// by its state's digest, is taken once (the second take sees it used), and
// is gone once expired; a sign-in waiting for its second factor (18.2.5) is
// found by its binder's digest, counts its wrong tries, ends, and outlives
// the flow's own expiry until the wait's.
#include <gtest/gtest.h>

#include <optional>
#include <string>

#include "store_conformance_fixture.hpp"

namespace authd {
namespace {

template <class Backend>
class StoreConformanceUpstreamFlows : public StoreConformanceFixture<Backend> {
 protected:
  static UpstreamFlowRecord flow(const std::string& state, Millis expires_at = 90'000) {
    UpstreamFlowRecord r;
    r.state_digest = sha256(state);
    r.binder_digest = sha256("binder of " + state);
    r.provider = "corp";
    r.purpose = "signin";
    r.request_id = "authdar_x";
    r.return_path = "/account";
    r.created_at = 1'000;
    r.expires_at = expires_at;
    return r;
  }

  std::optional<UpstreamFlowRecord> take(const std::string& state, Millis now) {
    std::optional<UpstreamFlowRecord> taken;
    this->write([&](Transaction& tx) { taken = tx.upstream_flows().take(sha256(state), now); });
    return taken;
  }
};

using Backends = ::testing::Types<OnSqlite, OnPostgres>;
TYPED_TEST_SUITE(StoreConformanceUpstreamFlows, Backends);

TYPED_TEST(StoreConformanceUpstreamFlows, Interface_18_2_AFlowIsTakenOnce) {
  UpstreamFlowRecord stored = this->flow("s-1");
  this->write([&](Transaction& tx) { tx.upstream_flows().insert(stored); });
  std::optional<UpstreamFlowRecord> first = this->take("s-1", 5'000);
  ASSERT_TRUE(first.has_value());
  EXPECT_EQ(first->binder_digest, stored.binder_digest);
  EXPECT_EQ(first->provider, "corp");
  EXPECT_EQ(first->purpose, "signin");
  EXPECT_EQ(first->user_id, "");
  EXPECT_EQ(first->request_id, "authdar_x");
  EXPECT_EQ(first->return_path, "/account");
  EXPECT_EQ(first->created_at, 1'000);
  EXPECT_EQ(first->expires_at, 90'000);
  EXPECT_FALSE(first->used_at.has_value());
  std::optional<UpstreamFlowRecord> second = this->take("s-1", 6'000);
  ASSERT_TRUE(second.has_value());
  EXPECT_EQ(second->used_at, std::optional<Millis>(5'000));
  EXPECT_FALSE(this->take("s-unknown", 6'000).has_value());
}

TYPED_TEST(StoreConformanceUpstreamFlows, Interface_18_2_ExpiredFlowsArePruned) {
  UpstreamFlowRecord old_flow = this->flow("s-old", 2'000);
  UpstreamFlowRecord live = this->flow("s-live", 90'000);
  std::int64_t removed = 0;
  this->write([&](Transaction& tx) {
    tx.upstream_flows().insert(old_flow);
    tx.upstream_flows().insert(live);
  });
  this->write([&](Transaction& tx) { removed = tx.upstream_flows().prune(3'000); });
  EXPECT_EQ(removed, 1);
  EXPECT_FALSE(this->take("s-old", 3'000).has_value());
  EXPECT_TRUE(this->take("s-live", 3'000).has_value());
}

TYPED_TEST(StoreConformanceUpstreamFlows, Interface_18_2_5_AWaitIsFoundByTheBinderAndEnds) {
  UpstreamFlowRecord stored = this->flow("s-wait", 2'000);
  this->write([&](Transaction& tx) { tx.upstream_flows().insert(stored); });
  ASSERT_TRUE(this->take("s-wait", 1'500).has_value());
  std::optional<AwaitedSecondFactor> before;
  this->write(
      [&](Transaction& tx) { before = tx.upstream_flows().awaiting(stored.binder_digest); });
  EXPECT_FALSE(before.has_value());  // a taken flow waits only once told to

  this->write([&](Transaction& tx) {
    tx.upstream_flows().await_second_factor(stored.state_digest, "user-1", 301'500);
  });
  int first = 0;
  int second = 0;
  std::optional<AwaitedSecondFactor> waiting;
  this->write([&](Transaction& tx) {
    first = tx.upstream_flows().count_wrong_try(stored.state_digest);
    second = tx.upstream_flows().count_wrong_try(stored.state_digest);
    waiting = tx.upstream_flows().awaiting(stored.binder_digest);
  });
  EXPECT_EQ(first, 1);
  EXPECT_EQ(second, 2);
  ASSERT_TRUE(waiting.has_value());
  EXPECT_EQ(waiting->user_id, "user-1");
  EXPECT_EQ(waiting->until, 301'500);
  EXPECT_EQ(waiting->wrong_tries, 2);
  EXPECT_EQ(waiting->flow.state_digest, stored.state_digest);
  EXPECT_EQ(waiting->flow.request_id, "authdar_x");
  EXPECT_EQ(waiting->flow.used_at, std::optional<Millis>(1'500));

  // Past the flow's expiry but not the wait's: kept.
  std::int64_t removed = -1;
  this->write([&](Transaction& tx) { removed = tx.upstream_flows().prune(3'000); });
  EXPECT_EQ(removed, 0);
  std::optional<AwaitedSecondFactor> ended;
  this->write([&](Transaction& tx) {
    tx.upstream_flows().end_wait(stored.state_digest);
    ended = tx.upstream_flows().awaiting(stored.binder_digest);
  });
  EXPECT_FALSE(ended.has_value());
  this->write([&](Transaction& tx) { removed = tx.upstream_flows().prune(301'500); });
  EXPECT_EQ(removed, 1);
}

}  // namespace
}  // namespace authd
