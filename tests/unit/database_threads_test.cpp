// config: the database pool's size when --database-threads is 0 (automatic).
#include <gtest/gtest.h>

#include <algorithm>
#include <thread>

#include "config/config.hpp"

namespace authd {
namespace {

// On SQLite the pool runs only reads: one thread per two cores, at least
// one (the slow reads of /metrics run beside it).
TEST(DatabaseThreads, AutomaticOnSqliteIsOnePerTwoCores) {
  Config config;
  config.database = "sqlite:/var/lib/authd/authd.db";
  std::size_t expected = std::max(1u, std::thread::hardware_concurrency() / 2);
  EXPECT_EQ(config.database_thread_count(), expected);
}

// On PostgreSQL every transaction waits out a round trip: 4 threads, and a
// pool of connections three larger (the outbox worker, the pruner, the
// /metrics counts).
TEST(DatabaseThreads, AutomaticOnPostgresIsFourWithThreeSpareConnections) {
  Config config;
  config.database = "postgresql://authd@db.internal/authd";
  EXPECT_EQ(config.database_thread_count(), 4u);
  EXPECT_EQ(config.store_options().pool_size, 7u);
}

TEST(DatabaseThreads, AnExplicitCountWinsOnEitherBackend) {
  Config config;
  config.database_threads = 3;
  config.database = "sqlite:authd.db";
  EXPECT_EQ(config.database_thread_count(), 3u);
  config.database = "postgres://authd@db.internal/authd";
  EXPECT_EQ(config.database_thread_count(), 3u);
  EXPECT_EQ(config.store_options().pool_size, 6u);
}

}  // namespace
}  // namespace authd
