// store/sqlite/checkpointer.hpp, the rule for slow, steady writers: a WAL of
// kTimedFrames or more gets a background checkpoint once a second at most,
// so that it is rewound long before it reaches kBackgroundFrames. (The
// frame rules are tested in sqlite_store_test.cpp.)
#include <gtest/gtest.h>

#include "store/sqlite/checkpointer.hpp"

namespace authd {
namespace {

using Policy = sqlite::CheckpointPolicy;
using Action = Policy::Action;
constexpr int kTimed = Policy::kTimedFrames;
constexpr std::int64_t kSecond = Policy::kTimedIntervalMs;

TEST(CheckpointTiming, ASmallWalIsCheckpointedOnceASecond) {
  Policy policy;
  const std::int64_t t0 = 1'000'000;
  EXPECT_EQ(policy.after_commit(kTimed - 1, 0, false, t0), Action::none) << "too small yet";
  EXPECT_EQ(policy.after_commit(kTimed, 0, false, t0), Action::background);
  EXPECT_EQ(policy.after_commit(kTimed + 10, 0, false, t0 + kSecond - 1), Action::none)
      << "not twice within a second";
  EXPECT_EQ(policy.after_commit(kTimed + 20, 0, false, t0 + kSecond), Action::background);
}

TEST(CheckpointTiming, AFrameStepCountsAsTheSecondsCheckpoint) {
  Policy policy;
  const std::int64_t t0 = 1'000'000;
  EXPECT_EQ(policy.after_commit(Policy::kBackgroundFrames, 0, false, t0), Action::background);
  EXPECT_EQ(policy.after_commit(Policy::kBackgroundFrames + 100, 0, false, t0 + 10), Action::none);
}

TEST(CheckpointTiming, WithoutAClockOnlyTheFrameRulesApply) {
  Policy policy;
  EXPECT_EQ(policy.after_commit(kTimed + 100, 0, false), Action::none);
  EXPECT_EQ(policy.after_commit(kTimed + 100, 0, false, 0), Action::none);
}

}  // namespace
}  // namespace authd
