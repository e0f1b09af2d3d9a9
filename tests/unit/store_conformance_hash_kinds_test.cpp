// The store conformance suite for the kinds of stored password hashes
// (interface.md 10.5): each kind keeps its last measured cost, and the set
// is made that of the hashes stored (kinds no hash has are dropped), on
// SQLite and on PostgreSQL (the PostgreSQL cases skip unless
// AUTHD_TEST_POSTGRES names a server).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "store_conformance_fixture.hpp"

namespace authd {
namespace {

template <class Backend>
class StoreConformanceHashKinds : public StoreConformanceFixture<Backend> {};

using Backends = ::testing::Types<OnSqlite, OnPostgres>;
TYPED_TEST_SUITE(StoreConformanceHashKinds, Backends);

constexpr const char* kOwn = "$argon2id$v=19$m=64,t=1,p=1";
constexpr const char* kDearer = "$argon2id$v=19$m=512,t=4,p=1";

// A kind starts without a cost; a measured one is stored with the own kind
// it was measured against, and read back at the next start.
TYPED_TEST(StoreConformanceHashKinds, Interface_10_5_AKindKeepsItsLastMeasuredCost) {
  UserRecord a = this->user("a@example.com");  // m=64,t=1
  UserRecord b = this->user("b@example.com");
  b.password_hash = std::string(kDearer) + "$c2FsdA$aA";
  this->write([&](Transaction& tx) {
    tx.users().insert(a);
    tx.users().insert(b);
  });
  this->read([&](Transaction& tx) {
    std::vector<HashKindCost> kinds = tx.users().hash_kind_costs();
    ASSERT_EQ(kinds.size(), 2u);
    for (const HashKindCost& kind : kinds) EXPECT_FALSE(kind.relative_cost.has_value());
  });
  this->write([&](Transaction& tx) {
    tx.users().set_hash_kind_cost(kDearer, kOwn, 31.25);
    tx.users().set_hash_kind_cost("$2b$12", kOwn, 3.0);  // not listed: nothing
  });
  this->read([&](Transaction& tx) {
    std::vector<HashKindCost> kinds = tx.users().hash_kind_costs();
    ASSERT_EQ(kinds.size(), 2u);
    EXPECT_EQ(kinds[0].kind, kDearer);
    EXPECT_EQ(kinds[0].relative_cost, 31.25);
    EXPECT_EQ(kinds[0].cost_basis, kOwn);
    EXPECT_EQ(kinds[1].kind, kOwn);
    EXPECT_FALSE(kinds[1].relative_cost.has_value());
  });
}

// Reconciling drops the kinds that no stored hash has any more (the
// account deleted, or its hash replaced), with their costs, and lists a
// kind in use that is missing; the kinds in use keep their costs.
TYPED_TEST(StoreConformanceHashKinds, Interface_10_5_KindsNoStoredHashHasAreDropped) {
  UserRecord a = this->user("a@example.com");
  UserRecord b = this->user("b@example.com");
  b.password_hash = std::string(kDearer) + "$c2FsdA$aA";
  UserRecord c = this->user("c@example.com");
  c.password_hash = "$argon2i$v=19$m=4096,t=3,p=1$c2FsdA$aA";
  this->write([&](Transaction& tx) {
    tx.users().insert(a);
    tx.users().insert(b);
    tx.users().insert(c);
    tx.users().set_hash_kind_cost(kOwn, kOwn, 1.0);
  });
  std::vector<std::string> dropped;
  this->write([&](Transaction& tx) {
    tx.users().remove(b.id);
    tx.users().replace_password_hash(c.id, "$argon2id$v=19$m=64,t=1,p=4$c2FsdA$aA");
    dropped = tx.users().reconcile_hash_kinds();
  });
  EXPECT_EQ(dropped, (std::vector<std::string>{"$argon2i$v=19$m=4096,t=3,p=1", kDearer}));
  this->read([&](Transaction& tx) {
    std::vector<HashKindCost> kinds = tx.users().hash_kind_costs();
    ASSERT_EQ(kinds.size(), 1u);
    EXPECT_EQ(kinds[0].kind, kOwn);
    EXPECT_EQ(kinds[0].relative_cost, 1.0) << "a kind in use keeps its cost";
  });
  this->write([&](Transaction& tx) {
    tx.users().remove(a.id);
    tx.users().remove(c.id);
    dropped = tx.users().reconcile_hash_kinds();
  });
  EXPECT_EQ(dropped, std::vector<std::string>{kOwn});
  this->read([&](Transaction& tx) { EXPECT_TRUE(tx.users().password_hash_kinds().empty()); });
}

}  // namespace
}  // namespace authd
