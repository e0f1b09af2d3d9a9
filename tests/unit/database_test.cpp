// store/database: the threads the server's Database starts, and where the
// requests' reads run. On both backends the reads run on the connection
// threads, those of one turn of a thread's loop together; the writes on
// SQLite on the writer, so besides the writer only the side thread (the
// /metrics counts, the /healthz check) runs; on PostgreSQL a pool of
// `threads` runs the write transactions, beside the same side thread.
#include "store/batching/scheduled_database.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <thread>
#include <vector>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>

#include "batching_fakes.hpp"
#include "store/sqlite/sqlite_store.hpp"
#include "temp_directory.hpp"

namespace authd {
namespace {

std::size_t threads_of_this_process() {
  std::size_t count = 0;
  for ([[maybe_unused]] const auto& task : std::filesystem::directory_iterator("/proc/self/task"))
    ++count;
  return count;
}

// One store that does not batch (the PostgreSQL case, without a server).
// It records where and how its read batches ran.
class PlainStore final : public Store {
 public:
  StoreStatus run(Mode, const std::function<void(Transaction&)>& work) override {
    test::NoAreas tx;
    work(tx);
    return StoreStatus::ok;
  }
  void run_reads_together(std::span<TransactionUnit> units) override {
    batches_.push_back({std::this_thread::get_id(), units.size()});
    Store::run_reads_together(units);
  }
  int migrate() override { return 0; }

  struct Batch {
    std::thread::id thread;
    std::size_t reads;
  };
  // Read once the loop's thread has been joined.
  const std::vector<Batch>& batches() const { return batches_; }

 private:
  std::vector<Batch> batches_;
};

TEST(Database, OnSqliteTheWriterAndTheSideThreadAreAllItStarts) {
  test::TempDirectory dir;
  sqlite::SqliteStore store(dir.file("authd.db"));
  store.migrate();
  std::size_t before = threads_of_this_process();
  ScheduledDatabase db(store, 4);  // the count is for stores that do not batch
  EXPECT_EQ(threads_of_this_process() - before, 2u);
}

// PostgreSQL: the pool, the side thread and the two threads that batch the
// writes that may share a transaction (logouts, /forgot). No thread for
// reads: they run on the connection threads (the test below).
TEST(Database, WithoutBatchingAPoolOfTheGivenSizeTheSideThreadAndTwoForWritesTogether) {
  PlainStore store;
  std::size_t before = threads_of_this_process();
  ScheduledDatabase db(store, 3);
  EXPECT_EQ(threads_of_this_process() - before, 6u);
}

// The reads asked for during one turn of a connection thread's loop run on
// that thread, together, after the turn: on PostgreSQL one pipeline, without
// a hand-off to another thread and back
// (docs/design/performance-choices.md#reads-in-batches-on-the-connection-threads).
TEST(Database, WithoutBatchingTheReadsOfOneTurnRunTogetherOnTheLoopsThread) {
  PlainStore store;
  ScheduledDatabase db(store, 1);
  boost::asio::io_context io;
  int finished = 0;
  for (int i = 0; i < 5; ++i) {
    boost::asio::co_spawn(
        io,
        [&]() -> boost::asio::awaitable<void> {
          auto work = [](Transaction&) {};
          StoreStatus status = co_await db.read(work);
          EXPECT_EQ(status, StoreStatus::ok);
          ++finished;
        },
        boost::asio::detached);
  }
  std::thread::id loop_thread;
  std::thread loop([&] {
    loop_thread = std::this_thread::get_id();
    io.run();
  });
  loop.join();
  EXPECT_EQ(finished, 5);
  std::vector<PlainStore::Batch> batches = store.batches();
  ASSERT_EQ(batches.size(), 1u) << "one batch for the turn's five reads";
  EXPECT_EQ(batches.front().reads, 5u);
  EXPECT_EQ(batches.front().thread, loop_thread);
}

}  // namespace
}  // namespace authd
