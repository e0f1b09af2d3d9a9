// config: the database pool's size when --database-threads is 0 (automatic),
// and the SQLite read connections' page cache handed to the store.
#include <gtest/gtest.h>

#include <algorithm>
#include <thread>

#include "config/config.hpp"

namespace authd {
namespace {

// On SQLite reads run on the connection threads and writes on the writer:
// Database starts no pool (tests/unit/database_test.cpp), so the count is
// 1 whatever is asked for, and only sizes the connection pool's spare.
TEST(DatabaseThreads, OnSqliteThePoolIsOneThread) {
  Config config;
  config.database = "sqlite:/var/lib/authd/authd.db";
  EXPECT_EQ(config.database_thread_count(), 1u);
  config.database_threads = 3;
  EXPECT_EQ(config.database_thread_count(), 1u);
}

// On PostgreSQL every transaction waits out a round trip: 4 threads, and a
// pool of connections with room for every other thread that takes one: the
// two that batch logouts and /forgot, each connection thread (its reads,
// store/database.hpp), the outbox worker, the pruner, the /metrics counts.
TEST(DatabaseThreads, AutomaticOnPostgresIsFourWithAConnectionForEveryOtherThreadThatTakesOne) {
  Config config;
  config.database = "postgresql://authd@db.internal/authd";
  config.io_threads = 2;
  EXPECT_EQ(config.database_thread_count(), 4u);
  EXPECT_EQ(config.store_options().pool_size, 4u + 2 + 2 + 3);
  config.io_threads = 8;
  EXPECT_EQ(config.store_options().pool_size, 4u + 2 + 8 + 3);
}

TEST(DatabaseThreads, AnExplicitCountWinsOnPostgres) {
  Config config;
  config.database_threads = 3;
  config.io_threads = 2;
  config.database = "postgres://authd@db.internal/authd";
  EXPECT_EQ(config.database_thread_count(), 3u);
  EXPECT_EQ(config.store_options().pool_size, 3u + 2 + 2 + 3);
  config.database_pool_size = 5;
  EXPECT_EQ(config.store_options().pool_size, 5u) << "--database-pool-size wins";
}

// Automatic connection threads are one per core.
TEST(DatabaseThreads, AutomaticConnectionThreadsAreOnePerCore) {
  Config config;
  EXPECT_EQ(config.io_thread_count(), std::max(1u, std::thread::hardware_concurrency()));
  config.io_threads = 3;
  EXPECT_EQ(config.io_thread_count(), 3u);
}

// --sqlite-read-cache-mib reaches the store in KiB; 0 keeps SQLite's default.
TEST(DatabaseThreads, SqliteReadCacheReachesTheStoreInKib) {
  Config config;
  EXPECT_EQ(config.store_options().sqlite_read_cache_kib, 32u * 1024) << "the default, 32 MiB";
  config.sqlite_read_cache_mib = 0;
  EXPECT_EQ(config.store_options().sqlite_read_cache_kib, 0u);
}

}  // namespace
}  // namespace authd
