// config: the database pool's size when --database-threads is 0 (automatic),
// and the SQLite read connections' page cache handed to the store.
#include <gtest/gtest.h>

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
// pool of connections seven larger (the two threads that batch logouts and
// /forgot, the two that batch reads, the outbox worker, the pruner, the
// /metrics counts).
TEST(DatabaseThreads, AutomaticOnPostgresIsFourWithSevenSpareConnections) {
  Config config;
  config.database = "postgresql://authd@db.internal/authd";
  EXPECT_EQ(config.database_thread_count(), 4u);
  EXPECT_EQ(config.store_options().pool_size, 11u);
}

TEST(DatabaseThreads, AnExplicitCountWinsOnPostgres) {
  Config config;
  config.database_threads = 3;
  config.database = "postgres://authd@db.internal/authd";
  EXPECT_EQ(config.database_thread_count(), 3u);
  EXPECT_EQ(config.store_options().pool_size, 10u);
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
