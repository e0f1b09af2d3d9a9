// config: the database pool's size when --database-threads is 0 (automatic).
#include <gtest/gtest.h>

#include <algorithm>
#include <thread>

#include "config/config.hpp"

namespace authd {
namespace {

// On SQLite the pool runs only reads: one thread per two cores, at least
// two (a slow read never holds up every other).
TEST(DatabaseThreads, AutomaticOnSqliteIsOnePerTwoCoresAtLeastTwo) {
  Config config;
  config.database = "sqlite:/var/lib/authd/authd.db";
  std::size_t expected = std::max(2u, std::thread::hardware_concurrency() / 2);
  EXPECT_EQ(config.database_thread_count(), expected);
}

// On PostgreSQL every transaction waits out a round trip: 4 threads, and a
// pool of connections two larger (the outbox worker, the pruner).
TEST(DatabaseThreads, AutomaticOnPostgresIsFourWithTwoSpareConnections) {
  Config config;
  config.database = "postgresql://authd@db.internal/authd";
  EXPECT_EQ(config.database_thread_count(), 4u);
  EXPECT_EQ(config.store_options().pool_size, 6u);
}

TEST(DatabaseThreads, AnExplicitCountWinsOnEitherBackend) {
  Config config;
  config.database_threads = 3;
  config.database = "sqlite:authd.db";
  EXPECT_EQ(config.database_thread_count(), 3u);
  config.database = "postgres://authd@db.internal/authd";
  EXPECT_EQ(config.database_thread_count(), 3u);
  EXPECT_EQ(config.store_options().pool_size, 5u);
}

}  // namespace
}  // namespace authd
