// store/commit_health: GET /healthz's view of whether the store can commit
// (interface.md 7.4), and when it probes with a write of its own: a quiet
// store once per kQuietMs, a failing one once per kRetryMs, one probe at a
// time.
#include "store/batching/commit_health.hpp"

#include <gtest/gtest.h>

namespace authd {
namespace {

constexpr std::int64_t kStart = 1'000'000;

TEST(CommitHealth, AfterAGoodWriteNoProbeUntilTheStoreHasBeenQuiet) {
  CommitHealth health;
  health.note(StoreStatus::ok, kStart);
  EXPECT_TRUE(health.last_ok());
  EXPECT_FALSE(health.probe_due(kStart + CommitHealth::kQuietMs - 1));
  EXPECT_TRUE(health.probe_due(kStart + CommitHealth::kQuietMs));
}

TEST(CommitHealth, AfterAFailedWriteProbesOncePerRetryInterval) {
  CommitHealth health;
  health.note(StoreStatus::failed, kStart);
  EXPECT_FALSE(health.last_ok());
  EXPECT_FALSE(health.probe_due(kStart + CommitHealth::kRetryMs - 1));
  EXPECT_TRUE(health.probe_due(kStart + CommitHealth::kRetryMs));
  health.probe_done();
  EXPECT_FALSE(health.probe_due(kStart + CommitHealth::kRetryMs + 1)) << "probed just now";
  EXPECT_TRUE(health.probe_due(kStart + 2 * CommitHealth::kRetryMs));
}

TEST(CommitHealth, OneProbeAtATime) {
  CommitHealth health;
  health.note(StoreStatus::unavailable, kStart);
  EXPECT_TRUE(health.probe_due(kStart + CommitHealth::kRetryMs));
  EXPECT_FALSE(health.probe_due(kStart + 5 * CommitHealth::kRetryMs)) << "the first is running";
  health.probe_done();
  EXPECT_TRUE(health.probe_due(kStart + 5 * CommitHealth::kRetryMs));
}

TEST(CommitHealth, ASuccessfulWriteMakesTheStoreHealthyAgain) {
  CommitHealth health;
  health.note(StoreStatus::failed, kStart);
  health.note(StoreStatus::ok, kStart + 10);
  EXPECT_TRUE(health.last_ok());
  EXPECT_FALSE(health.probe_due(kStart + 10 + CommitHealth::kRetryMs));
}

}  // namespace
}  // namespace authd
