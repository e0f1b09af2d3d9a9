// The store conformance suite for the admin API's primitives (interface.md
// 10): admin keys, user paging and erasure's deletes, run unchanged on
// SQLite and on PostgreSQL (the PostgreSQL cases skip unless
// AUTHD_TEST_POSTGRES names a server; scripts/test.sh runs them there).
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include "auth/admin/erasure.hpp"
#include "auth/login/throttle.hpp"
#include "store_conformance_fixture.hpp"

namespace authd {
namespace {

template <class Backend>
class StoreConformanceAdmin : public StoreConformanceFixture<Backend> {};

using Backends = ::testing::Types<OnSqlite, OnPostgres>;
TYPED_TEST_SUITE(StoreConformanceAdmin, Backends);

AdminKeyRecord key(const std::string& name, const std::string& secret, const char* scope) {
  return AdminKeyRecord{name, sha256(secret), scope, 5'000, std::nullopt};
}

// interface.md 10.2: a key is found by its digest alone, under a unique
// name; a revoked key is never found again.
TYPED_TEST(StoreConformanceAdmin, Interface_10_2_AdminKeysAreFoundByDigestAndRevokedByName) {
  this->write([&](Transaction& tx) {
    EXPECT_TRUE(tx.admin_keys().insert(key("ops", "authdak_one", "write")));
    EXPECT_TRUE(tx.admin_keys().insert(key("audit", "authdak_two", "read")));
    EXPECT_FALSE(tx.admin_keys().insert(key("ops", "authdak_three", "read")));  // name taken
  });
  this->read([&](Transaction& tx) {
    auto found = tx.admin_keys().by_digest(sha256("authdak_two"));
    ASSERT_TRUE(found);
    EXPECT_EQ(found->name, "audit");
    EXPECT_EQ(found->scope, "read");
    EXPECT_EQ(found->created_at, 5'000);
    EXPECT_FALSE(found->last_used_at);
    EXPECT_FALSE(tx.admin_keys().by_digest(sha256("authdak_three")));
    std::vector<AdminKeyRecord> all = tx.admin_keys().list();
    ASSERT_EQ(all.size(), 2u);
    EXPECT_EQ(all[0].name, "audit");  // by name
    EXPECT_EQ(all[1].name, "ops");
  });
  this->write([&](Transaction& tx) {
    tx.admin_keys().mark_used("ops", 9'000);
    EXPECT_TRUE(tx.admin_keys().revoke("audit"));
    EXPECT_FALSE(tx.admin_keys().revoke("audit"));
  });
  this->read([&](Transaction& tx) {
    EXPECT_FALSE(tx.admin_keys().by_digest(sha256("authdak_two")));
    auto ops = tx.admin_keys().by_digest(sha256("authdak_one"));
    ASSERT_TRUE(ops);
    EXPECT_EQ(ops->last_used_at, 9'000);
  });
}

// interface.md 10.4: paging by id after a cursor visits every user once, in
// creation order (account ids increase), however the pages fall.
TYPED_TEST(StoreConformanceAdmin, Interface_10_4_PagesVisitEveryUserOnceInCreationOrder) {
  std::vector<std::string> ids;
  this->write([&](Transaction& tx) {
    for (int i = 0; i < 23; ++i) {
      UserRecord u = this->user("user" + std::to_string(i) + "@example.com");
      u.id = new_account_id(1'000);  // all in one millisecond
      ids.push_back(u.id);
      ASSERT_TRUE(tx.users().insert(u));
    }
  });
  std::vector<std::string> seen;
  std::string cursor;
  for (int page = 0; page < 10; ++page) {
    std::vector<UserRecord> users;
    this->read([&](Transaction& tx) { users = tx.users().page_after(cursor, 5); });
    if (users.empty()) break;
    for (const UserRecord& u : users) seen.push_back(u.id);
    cursor = users.back().id;
  }
  EXPECT_EQ(seen, ids);
}

// interface.md 10.3: lastLoginAt is written apart from the record, and
// updatedAt stays (2.6).
TYPED_TEST(StoreConformanceAdmin, Interface_10_3_RecordingALoginLeavesUpdatedAt) {
  UserRecord u = this->stored_user("seen@example.com");
  this->write([&](Transaction& tx) { tx.users().record_login(u.id, 7'000); });
  this->read([&](Transaction& tx) {
    auto back = tx.users().by_id(u.id);
    ASSERT_TRUE(back);
    EXPECT_EQ(back->last_login_at, 7'000);
    EXPECT_EQ(back->updated_at, u.updated_at);
  });
}

// interface.md 10.4 DELETE /admin/users/{id}: erasure leaves no row of the
// account behind: sessions (revoked ones too), reset tokens, mail by user
// or by address, a pending sign-up of the address, its throttling keys.
TYPED_TEST(StoreConformanceAdmin, Interface_10_4_ErasureRemovesEveryRowOfTheAccount) {
  UserRecord gone = this->stored_user("gone@example.com");
  UserRecord kept = this->stored_user("kept@example.com");
  auto session = [](const UserRecord& u, const std::string& token) {
    SessionRecord s;
    s.token_digest = sha256(token);
    s.user_id = u.id;
    s.created_at = 1'000;
    s.expires_at = 100'000;
    s.public_id = new_uuid_v4();
    return s;
  };
  this->write([&](Transaction& tx) {
    tx.sessions().insert(session(gone, "a"));
    tx.sessions().insert(session(gone, "b"));
    tx.sessions().revoke(sha256("b"), 2'000);
    tx.sessions().insert(session(kept, "c"));
    tx.reset_tokens().replace({sha256("r1"), gone.id, 1'000, 100'000});
    tx.reset_tokens().replace({sha256("r2"), kept.id, 1'000, 100'000});
    tx.outbox().enqueue(this->mail("gone@example.com", 1'000));
    OutboxRecord by_user = this->mail("other@example.com", 1'000);
    by_user.user_id = gone.id;
    tx.outbox().enqueue(by_user);
    tx.outbox().enqueue(this->mail("kept@example.com", 1'000));
    tx.signups().replace(this->signup("s1", "gone@example.com", 100'000));
    tx.throttle().insert_event(login_email_key("gone@example.com"), 1'000);
    tx.throttle().insert_event(reset_mail_key("gone@example.com"), 1'000);
    tx.throttle().insert_event(signup_mail_key("gone@example.com"), 1'000);
    tx.throttle().insert_event(login_email_key("kept@example.com"), 1'000);
  });
  this->write([&](Transaction& tx) { erase_account(tx, gone); });
  this->read([&](Transaction& tx) {
    EXPECT_FALSE(tx.users().by_id(gone.id));
    EXPECT_FALSE(tx.users().by_email("gone@example.com"));
    EXPECT_TRUE(tx.users().by_id(kept.id));
    EXPECT_FALSE(tx.sessions().user_of(sha256("a")));
    EXPECT_TRUE(tx.sessions().user_of(sha256("c")));
    EXPECT_TRUE(tx.sessions().list_live_of_user(gone.id, 1'500).empty());
    EXPECT_FALSE(tx.reset_tokens().by_digest(sha256("r1")));
    EXPECT_TRUE(tx.reset_tokens().by_digest(sha256("r2")));
    EXPECT_EQ(tx.outbox().pending_count(), 1);  // kept's mail only
    EXPECT_FALSE(tx.signups().by_digest(sha256("s1")));
    EXPECT_TRUE(tx.throttle().event_times(login_email_key("gone@example.com"), 0, 10).empty());
    EXPECT_TRUE(tx.throttle().event_times(reset_mail_key("gone@example.com"), 0, 10).empty());
    EXPECT_TRUE(tx.throttle().event_times(signup_mail_key("gone@example.com"), 0, 10).empty());
    EXPECT_EQ(tx.throttle().event_times(login_email_key("kept@example.com"), 0, 10).size(), 1u);
  });
}

// interface.md 10.4 DELETE /admin/sessions/{id}: one live session, whoever's
// it is, by its public id; an unknown or already revoked id: false.
TYPED_TEST(StoreConformanceAdmin, Interface_10_4_ASessionIsRevokedByItsPublicIdAlone) {
  UserRecord u = this->stored_user("s@example.com");
  SessionRecord s;
  s.token_digest = sha256("t");
  s.user_id = u.id;
  s.created_at = 1'000;
  s.expires_at = 100'000;
  s.public_id = new_uuid_v4();
  this->write([&](Transaction& tx) { tx.sessions().insert(s); });
  this->write([&](Transaction& tx) {
    EXPECT_FALSE(tx.sessions().revoke_by_public_id(new_uuid_v4(), 2'000));
    EXPECT_EQ(tx.sessions().revoke_by_public_id(s.public_id, 2'000), s.user_id);
    EXPECT_FALSE(tx.sessions().revoke_by_public_id(s.public_id, 2'000));
  });
  this->read([&](Transaction& tx) { EXPECT_FALSE(tx.sessions().user_of(sha256("t"))); });
}

}  // namespace
}  // namespace authd
