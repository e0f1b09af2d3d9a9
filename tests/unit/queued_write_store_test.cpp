// store/batching/queued_write_store: the background threads' store. Their
// writes go through the writer's queue (and its batches) instead of
// competing with it; their reads, and every call when there is no writer,
// go straight to the store.
#include "store/batching/queued_write_store.hpp"

#include <gtest/gtest.h>

#include <stdexcept>
#include <thread>

#include "batching_fakes.hpp"

namespace authd {
namespace {

TEST(QueuedWriteStore, AWriteJoinsTheWritersQueueAndReturnsItsOutcome) {
  test::RecordingBatches store;
  TransactionBatcher writer(store);
  QueuedWriteStore background(store, &writer);
  std::thread::id ran_on;
  EXPECT_EQ(background.run(Store::Mode::write,
                           [&](Transaction&) { ran_on = std::this_thread::get_id(); }),
            StoreStatus::ok);
  EXPECT_EQ(store.sizes().size(), 1u) << "one batch of the writer";
  EXPECT_EQ(ran_on, store.last_thread());
  EXPECT_NE(ran_on, std::this_thread::get_id());
}

TEST(QueuedWriteStore, AnExceptionOfTheWorkReachesItsCaller) {
  test::RecordingBatches store;
  TransactionBatcher writer(store);
  QueuedWriteStore background(store, &writer);
  EXPECT_THROW(
      background.run(Store::Mode::write, [](Transaction&) { throw std::runtime_error("bug"); }),
      std::runtime_error);
}

TEST(QueuedWriteStore, ReadsAndWritesWithoutAWriterRunDirectly) {
  test::RecordingBatches store;
  TransactionBatcher writer(store);
  QueuedWriteStore with_writer(store, &writer);
  QueuedWriteStore without(store, nullptr);
  std::thread::id read_on, written_on;
  EXPECT_EQ(with_writer.run(Store::Mode::read,
                            [&](Transaction&) { read_on = std::this_thread::get_id(); }),
            StoreStatus::ok);
  EXPECT_EQ(without.run(Store::Mode::write,
                        [&](Transaction&) { written_on = std::this_thread::get_id(); }),
            StoreStatus::ok);
  EXPECT_EQ(read_on, std::this_thread::get_id());
  EXPECT_EQ(written_on, std::this_thread::get_id());
  EXPECT_TRUE(store.sizes().empty()) << "no batch ran";
}

}  // namespace
}  // namespace authd
