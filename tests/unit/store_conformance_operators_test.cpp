// The store conformance suite for the operator's console (interface.md
// 21.2): grants and console sessions, run unchanged on SQLite and on
// PostgreSQL (the PostgreSQL cases skip unless AUTHD_TEST_POSTGRES names a
// server; scripts/test.sh runs them there).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "auth/admin/erasure.hpp"
#include "store_conformance_fixture.hpp"

namespace authd {
namespace {

template <class Backend>
class StoreConformanceOperators : public StoreConformanceFixture<Backend> {};

using Backends = ::testing::Types<OnSqlite, OnPostgres>;
TYPED_TEST_SUITE(StoreConformanceOperators, Backends);

ConsoleSessionRecord console_session(const UserRecord& user, const std::string& token,
                                     Millis idle_until, Millis expires_at) {
  return ConsoleSessionRecord{sha256(token), user.id, 1'000, idle_until, expires_at};
}

// 21.2.1: one grant per account, its scope changed by granting again;
// revoking removes it and the account's console sessions, and no other's.
TYPED_TEST(StoreConformanceOperators, Interface_21_2_GrantsAreOnePerAccountAndRevokeEndsSessions) {
  UserRecord ops = this->stored_user("ops@example.com");
  UserRecord other = this->stored_user("other@example.com");
  this->write([&](Transaction& tx) {
    tx.operators().grant({ops.id, "read", 1'000, "cli"});
    tx.operators().grant({ops.id, "write", 2'000, "cli"});
    tx.operators().grant({other.id, "read", 3'000, "cli"});
    tx.operators().insert_session(console_session(ops, "a", 50'000, 90'000));
    tx.operators().insert_session(console_session(other, "b", 50'000, 90'000));
  });
  this->read([&](Transaction& tx) {
    auto grant = tx.operators().by_user(ops.id);
    ASSERT_TRUE(grant);
    EXPECT_EQ(grant->scope, "write");
    EXPECT_EQ(grant->granted_at, 2'000);
    std::vector<OperatorRecord> all = tx.operators().list();
    ASSERT_EQ(all.size(), 2u);
    EXPECT_EQ(all[0].user_id, ops.id);  // by grant time
    EXPECT_EQ(all[1].user_id, other.id);
  });
  this->write([&](Transaction& tx) {
    EXPECT_TRUE(tx.operators().revoke(ops.id));
    EXPECT_FALSE(tx.operators().revoke(ops.id));
  });
  this->read([&](Transaction& tx) {
    EXPECT_FALSE(tx.operators().by_user(ops.id));
    EXPECT_FALSE(tx.operators().session_by_digest(sha256("a")));
    EXPECT_TRUE(tx.operators().session_by_digest(sha256("b")));
  });
}

// 21.2.4: a console session is found by its digest alone; touching moves
// its idle end; ending it and pruning past either end remove it.
TYPED_TEST(StoreConformanceOperators, Interface_21_2_ConsoleSessionsTouchEndAndPrune) {
  UserRecord ops = this->stored_user("ops@example.com");
  this->write([&](Transaction& tx) {
    tx.operators().grant({ops.id, "write", 1'000, "cli"});
    tx.operators().insert_session(console_session(ops, "idle", 10'000, 90'000));
    tx.operators().insert_session(console_session(ops, "old", 80'000, 20'000));
    tx.operators().insert_session(console_session(ops, "live", 10'000, 90'000));
    tx.operators().insert_session(console_session(ops, "ended", 50'000, 90'000));
  });
  this->write([&](Transaction& tx) {
    tx.operators().touch_session(sha256("live"), 60'000);
    EXPECT_TRUE(tx.operators().end_session(sha256("ended")));
    EXPECT_FALSE(tx.operators().end_session(sha256("ended")));
  });
  this->read([&](Transaction& tx) {
    auto live = tx.operators().session_by_digest(sha256("live"));
    ASSERT_TRUE(live);
    EXPECT_EQ(live->idle_until, 60'000);
    EXPECT_EQ(live->user_id, ops.id);
    EXPECT_FALSE(tx.operators().session_by_digest(sha256("ended")));
  });
  this->write([&](Transaction& tx) { EXPECT_EQ(tx.operators().prune(30'000), 2); });
  this->read([&](Transaction& tx) {
    EXPECT_FALSE(tx.operators().session_by_digest(sha256("idle")));
    EXPECT_FALSE(tx.operators().session_by_digest(sha256("old")));
    EXPECT_TRUE(tx.operators().session_by_digest(sha256("live")));
  });
}

// 21.2.1: erasing an account removes its grant and console sessions.
TYPED_TEST(StoreConformanceOperators, Interface_21_2_ErasureRemovesGrantAndSessions) {
  UserRecord ops = this->stored_user("ops@example.com");
  this->write([&](Transaction& tx) {
    tx.operators().grant({ops.id, "write", 1'000, "cli"});
    tx.operators().insert_session(console_session(ops, "a", 50'000, 90'000));
  });
  this->write([&](Transaction& tx) { erase_account(tx, ops); });
  this->read([&](Transaction& tx) {
    EXPECT_FALSE(tx.operators().by_user(ops.id));
    EXPECT_FALSE(tx.operators().session_by_digest(sha256("a")));
    EXPECT_TRUE(tx.operators().list().empty());
  });
}

}  // namespace
}  // namespace authd
