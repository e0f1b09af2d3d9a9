// store/batching/loop_reads: the reads of one turn of an event loop, kept
// per Database, so that the first read of a turn posts the one run that
// takes them all.
#include "store/batching/loop_reads.hpp"

#include <gtest/gtest.h>

#include <boost/asio/execution_context.hpp>
#include <boost/asio/io_context.hpp>

#include "batching_fakes.hpp"

namespace authd {
namespace {

BatchJob numbered(int n, std::vector<int>& ran) {
  return BatchJob{[n, &ran](Transaction&) { ran.push_back(n); },
                  [](StoreStatus, std::exception_ptr) {}};
}

TEST(LoopReads, OnlyTheFirstReadOfATurnAsksForARun) {
  boost::asio::io_context io;
  auto& reads = boost::asio::use_service<LoopReads>(io);
  std::vector<int> ran;
  int owner = 0;
  EXPECT_TRUE(reads.add(&owner, numbered(1, ran)));
  EXPECT_FALSE(reads.add(&owner, numbered(2, ran)));
  EXPECT_FALSE(reads.add(&owner, numbered(3, ran)));
  std::vector<BatchJob> taken = reads.take(&owner);
  ASSERT_EQ(taken.size(), 3u);
  EXPECT_TRUE(reads.take(&owner).empty());
  EXPECT_TRUE(reads.add(&owner, numbered(4, ran))) << "a new turn asks again";
}

TEST(LoopReads, EachDatabaseHasItsOwnQueueInOneLoop) {
  boost::asio::io_context io;
  auto& reads = boost::asio::use_service<LoopReads>(io);
  std::vector<int> ran;
  int first = 0, second = 0;
  EXPECT_TRUE(reads.add(&first, numbered(1, ran)));
  EXPECT_TRUE(reads.add(&second, numbered(2, ran)));
  EXPECT_FALSE(reads.add(&first, numbered(3, ran)));
  EXPECT_EQ(reads.take(&first).size(), 2u);
  std::vector<BatchJob> theirs = reads.take(&second);
  ASSERT_EQ(theirs.size(), 1u);
}

// The order of a batch is the order the reads were asked for.
TEST(LoopReads, ABatchKeepsTheOrderOfItsReads) {
  boost::asio::io_context io;
  auto& reads = boost::asio::use_service<LoopReads>(io);
  std::vector<int> ran;
  int owner = 0;
  for (int n = 1; n <= 4; ++n) reads.add(&owner, numbered(n, ran));
  std::vector<BatchJob> batch = reads.take(&owner);
  std::vector<BatchedStore::Unit> units;
  run_batch(batch, units, [](std::span<BatchedStore::Unit> u) {
    for (auto& unit : u) {
      test::NoAreas tx;
      (*unit.work)(tx);
      unit.status = StoreStatus::ok;
    }
  });
  EXPECT_EQ(ran, (std::vector<int>{1, 2, 3, 4}));
}

}  // namespace
}  // namespace authd
