// store/postgres/sqlstate.hpp: what a PostgreSQL error's SQLSTATE makes of
// a request. Pure: no server.
#include "store/postgres/sqlstate.hpp"

#include <gtest/gtest.h>

namespace authd::postgres {
namespace {

// 8.2: writers that meet in a deadlock, a lock not granted in time, a
// statement cancelled at its timeout: the request gets a 503 and may be
// retried. A constraint or a syntax error is a fault, not "not now".
TEST(PostgresSqlstate, Interface_8_2_ADeadlockOrALockWaitIsRetriedLater) {
  for (const char* state : {"40P01", "40001", "55P03", "57014", "25P03", "53300", "26000"})
    EXPECT_TRUE(is_transient(state)) << state;
  for (const char* state : {"23505", "23503", "42P01", "22P02", "XX000"})
    EXPECT_FALSE(is_transient(state)) << state;
}

// 20.2: after a failover the old primary is a standby. It refuses a write
// (25006) or BEGIN READ WRITE (0A000); that connection will never write
// again, and the request is retried on a new one.
TEST(PostgresSqlstate, Interface_20_2_AStandbysRefusalIsRetriedOnAnotherConnection) {
  for (const char* state : {"25006", "0A000"}) {
    EXPECT_TRUE(is_read_only_server(state)) << state;
    EXPECT_TRUE(is_transient(state)) << state;
  }
  EXPECT_FALSE(is_read_only_server("25P03"));
  EXPECT_FALSE(is_read_only_server("40P01"));
}

// 20.2: a lost connection (08) or a server shutting down or starting (57P)
// ends the session; a deadlock or a lock timeout leaves it usable.
TEST(PostgresSqlstate, Interface_20_2_ALostConnectionEndsTheSessionALockWaitDoesNot) {
  for (const char* state : {"08006", "08003", "57P01", "57P03"}) {
    EXPECT_TRUE(ends_the_session(state)) << state;
    EXPECT_TRUE(is_transient(state)) << state;
  }
  for (const char* state : {"40P01", "55P03", "57014", "23505"})
    EXPECT_FALSE(ends_the_session(state)) << state;
}

}  // namespace
}  // namespace authd::postgres
