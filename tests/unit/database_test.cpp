// store/database: the threads the server's Database starts. On SQLite the
// requests' reads run on the connection threads and their writes on the
// writer, so besides the writer only the side thread (the /metrics counts,
// the /healthz check) runs; on PostgreSQL a pool of `threads` runs the
// transactions, beside the same side thread.
#include "store/database.hpp"

#include <gtest/gtest.h>

#include <filesystem>

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
class PlainStore final : public Store {
 public:
  StoreStatus run(Mode, const std::function<void(Transaction&)>& work) override {
    test::NoAreas tx;
    work(tx);
    return StoreStatus::ok;
  }
  int migrate() override { return 0; }
};

TEST(Database, OnSqliteTheWriterAndTheSideThreadAreAllItStarts) {
  test::TempDirectory dir;
  sqlite::SqliteStore store(dir.file("authd.db"));
  store.migrate();
  std::size_t before = threads_of_this_process();
  Database db(store, 4);  // the count is for stores that do not batch
  EXPECT_EQ(threads_of_this_process() - before, 2u);
}

// PostgreSQL: the pool, the side thread, the two threads that batch the
// writes that may share a transaction (logouts, /forgot), and the two that
// batch reads (store/postgres/read_pipeline.hpp).
TEST(Database, WithoutBatchingAPoolOfTheGivenSizeTheSideThreadAndTwoEachForWritesTogetherAndReads) {
  PlainStore store;
  std::size_t before = threads_of_this_process();
  Database db(store, 3);
  EXPECT_EQ(threads_of_this_process() - before, 8u);
}

}  // namespace
}  // namespace authd
