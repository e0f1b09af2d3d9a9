// store/batching/transaction_batcher: the SQLite writer's queue. What is
// queued while a batch runs goes into the next one, up to kMaxBatch; every
// job is told its outcome once; a stopped batcher refuses new work at once.
#include "store/batching/transaction_batcher.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <future>
#include <vector>

#include "batching_fakes.hpp"

namespace authd {
namespace {

struct Outcomes {
  std::atomic<int> ok{0}, unavailable{0}, failed{0}, with_error{0};
  BatchJob job() {
    return BatchJob{[](Transaction&) {},
                    [this](StoreStatus status, std::exception_ptr error) {
                      if (error) ++with_error;
                      if (status == StoreStatus::ok) ++ok;
                      if (status == StoreStatus::unavailable) ++unavailable;
                      if (status == StoreStatus::failed) ++failed;
                    }};
  }
};

// interface.md 8.3: N concurrent writes, one durable commit: the writes
// queued while the writer is busy share its next batch.
TEST(TransactionBatcher, Interface_8_3_WritesQueuedWhileABatchRunsShareTheNext) {
  test::RecordingBatches store;
  store.hold_first = true;
  Outcomes outcomes;
  {
    TransactionBatcher batcher(store);
    batcher.submit(outcomes.job());
    store.first_started.get_future().wait();
    for (int i = 0; i < 5; ++i) batcher.submit(outcomes.job());
    store.release_first.set_value();
  }  // stop(): runs what is queued, then joins
  EXPECT_EQ(store.sizes(), (std::vector<std::size_t>{1, 5}));
  EXPECT_EQ(outcomes.ok, 6);
}

TEST(TransactionBatcher, ABatchHoldsAtMostKMaxBatchWrites) {
  test::RecordingBatches store;
  store.hold_first = true;
  Outcomes outcomes;
  const int queued = static_cast<int>(TransactionBatcher::kMaxBatch) + 44;
  {
    TransactionBatcher batcher(store);
    batcher.submit(outcomes.job());
    store.first_started.get_future().wait();
    for (int i = 0; i < queued; ++i) batcher.submit(outcomes.job());
    store.release_first.set_value();
  }
  EXPECT_EQ(store.sizes(), (std::vector<std::size_t>{1, TransactionBatcher::kMaxBatch, 44}));
  EXPECT_EQ(outcomes.ok, queued + 1);
}

TEST(TransactionBatcher, AfterStopANewJobIsUnavailableAtOnce) {
  test::RecordingBatches store;
  Outcomes outcomes;
  TransactionBatcher batcher(store);
  batcher.stop();
  batcher.submit(outcomes.job());
  EXPECT_EQ(outcomes.unavailable, 1);
  EXPECT_TRUE(store.sizes().empty());
}

// A batch that fails as a whole (out of memory, say) reports no unit as done.
TEST(TransactionBatcher, ABatchThatThrowsFailsEveryOneOfItsJobs) {
  test::RecordingBatches store;
  store.throw_in_batch = true;
  Outcomes outcomes;
  {
    TransactionBatcher batcher(store);
    for (int i = 0; i < 3; ++i) batcher.submit(outcomes.job());
  }
  EXPECT_EQ(outcomes.ok, 0);
  EXPECT_EQ(outcomes.failed, 3);
  EXPECT_EQ(outcomes.with_error, 3);
}

}  // namespace
}  // namespace authd
