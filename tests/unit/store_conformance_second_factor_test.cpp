// The store conformance suite for the second factor's primitives
// (interface.md 12), run unchanged on SQLite and on PostgreSQL (the
// PostgreSQL cases skip unless AUTHD_TEST_POSTGRES names a server;
// scripts/test.sh runs them there): one factor per account, pending until
// confirmed; steps accepted only forward; recovery codes taken once.
#include <gtest/gtest.h>

#include "auth/admin/erasure.hpp"
#include "store_conformance_fixture.hpp"

namespace authd {
namespace {

template <class Backend>
class StoreConformanceSecondFactors : public StoreConformanceFixture<Backend> {};

using Backends = ::testing::Types<OnSqlite, OnPostgres>;
TYPED_TEST_SUITE(StoreConformanceSecondFactors, Backends);

// 12.1: a pending factor is replaced by a new enrolment; a confirmed one is
// not; confirmation needs the pending secret it was read with.
TYPED_TEST(StoreConformanceSecondFactors, Interface_12_1_PendingFactorIsReplacedConfirmedOneIsNot) {
  UserRecord u = this->stored_user("mfa@example.com");
  this->write([&](Transaction& tx) {
    EXPECT_FALSE(tx.second_factors().totp_of(u.id));
    EXPECT_TRUE(tx.second_factors().put_pending_totp({u.id, "v1.first", 1'000}));
    EXPECT_TRUE(tx.second_factors().put_pending_totp({u.id, "v1.second", 2'000}));
    EXPECT_FALSE(tx.second_factors().confirm_totp(u.id, "v1.first", 40, 3'000));  // replaced
  });
  this->write([&](Transaction& tx) {
    auto pending = tx.second_factors().totp_of(u.id);
    ASSERT_TRUE(pending);
    EXPECT_EQ(pending->sealed_secret, "v1.second");
    EXPECT_FALSE(pending->confirmed());
    EXPECT_EQ(pending->last_step, -1);
    EXPECT_TRUE(tx.second_factors().confirm_totp(u.id, "v1.second", 40, 3'000));
    EXPECT_FALSE(tx.second_factors().confirm_totp(u.id, "v1.second", 41, 3'000));  // once
    EXPECT_FALSE(tx.second_factors().put_pending_totp({u.id, "v1.third", 4'000}));
  });
  this->read([&](Transaction& tx) {
    auto confirmed = tx.second_factors().totp_of(u.id);
    ASSERT_TRUE(confirmed);
    EXPECT_EQ(confirmed->sealed_secret, "v1.second");
    EXPECT_EQ(confirmed->confirmed_at, 3'000);
    EXPECT_EQ(confirmed->last_step, 40);
  });
}

// 12.3.4: a step is accepted only when newer than every step accepted
// before, and only for a confirmed factor.
TYPED_TEST(StoreConformanceSecondFactors, Interface_12_3_StepsAreAcceptedOnlyForward) {
  UserRecord u = this->stored_user("steps@example.com");
  this->write([&](Transaction& tx) {
    tx.second_factors().put_pending_totp({u.id, "v1.s", 1'000});
    EXPECT_FALSE(tx.second_factors().accept_totp_step(u.id, 10));  // pending
    EXPECT_TRUE(tx.second_factors().confirm_totp(u.id, "v1.s", 10, 1'000));
    EXPECT_FALSE(tx.second_factors().accept_totp_step(u.id, 10));
    EXPECT_FALSE(tx.second_factors().accept_totp_step(u.id, 9));
    EXPECT_TRUE(tx.second_factors().accept_totp_step(u.id, 11));
    EXPECT_FALSE(tx.second_factors().accept_totp_step(u.id, 11));
    EXPECT_TRUE(tx.second_factors().accept_totp_step(u.id, 13));
    EXPECT_FALSE(tx.second_factors().accept_totp_step(u.id, 12));
  });
}

// 12.1: a new set replaces the old; each code is taken once; removal takes
// the factor and the codes, and says whether a confirmed factor was there.
TYPED_TEST(StoreConformanceSecondFactors,
           Interface_12_1_RecoveryCodesAreTakenOnceAndRemovedWithTheFactor) {
  UserRecord u = this->stored_user("codes@example.com");
  UserRecord other = this->stored_user("other@example.com");
  this->write([&](Transaction& tx) {
    tx.second_factors().put_pending_totp({u.id, "v1.s", 1'000});
    tx.second_factors().confirm_totp(u.id, "v1.s", 1, 1'000);
    tx.second_factors().replace_recovery_codes(u.id, {sha256("a"), sha256("b")});
    tx.second_factors().replace_recovery_codes(u.id, {sha256("c"), sha256("d"), sha256("e")});
    tx.second_factors().replace_recovery_codes(other.id, {sha256("c")});
    EXPECT_EQ(tx.second_factors().recovery_codes_left(u.id), 3);
    EXPECT_FALSE(tx.second_factors().use_recovery_code(u.id, sha256("a")));  // the old set is void
    EXPECT_TRUE(tx.second_factors().use_recovery_code(u.id, sha256("c")));
    EXPECT_FALSE(tx.second_factors().use_recovery_code(u.id, sha256("c")));
    EXPECT_EQ(tx.second_factors().recovery_codes_left(u.id), 2);
    EXPECT_EQ(tx.second_factors().recovery_codes_left(other.id), 1);  // another account's own
  });
  this->write([&](Transaction& tx) {
    EXPECT_TRUE(tx.second_factors().remove_all(u.id));
    EXPECT_FALSE(tx.second_factors().remove_all(u.id));
    EXPECT_FALSE(tx.second_factors().totp_of(u.id));
    EXPECT_EQ(tx.second_factors().recovery_codes_left(u.id), 0);
    tx.second_factors().put_pending_totp({u.id, "v1.p", 2'000});
    EXPECT_FALSE(tx.second_factors().remove_all(u.id));  // a pending one goes too, but says no
    EXPECT_FALSE(tx.second_factors().totp_of(u.id));
  });
}

// 12.2.3: the factors sealed with another key than the current one, in
// pages by account id, and sealed anew.
TYPED_TEST(StoreConformanceSecondFactors, Interface_12_2_FactorsOfAnotherKeyAreFoundAndResealed) {
  UserRecord a = this->stored_user("a@example.com");
  UserRecord b = this->stored_user("b@example.com");
  UserRecord c = this->stored_user("c@example.com");
  this->write([&](Transaction& tx) {
    tx.second_factors().put_pending_totp({a.id, "v1.0000000a.x", 1'000});
    tx.second_factors().put_pending_totp({b.id, "v1.0000000b.y", 1'000});
    tx.second_factors().put_pending_totp({c.id, "v1.0000000a.z", 1'000});
  });
  this->write([&](Transaction& tx) {
    auto old = tx.second_factors().sealed_with_other_key("0000000b", "", 10);
    ASSERT_EQ(old.size(), 2u);
    EXPECT_LT(old[0].user_id, old[1].user_id);
    auto after_first = tx.second_factors().sealed_with_other_key("0000000b", old[0].user_id, 10);
    ASSERT_EQ(after_first.size(), 1u);
    EXPECT_EQ(after_first[0].user_id, old[1].user_id);
    for (const auto& f : old)
      EXPECT_TRUE(tx.second_factors().reseal_totp(f.user_id, f.sealed_secret, "v1.0000000b.new"));
    EXPECT_TRUE(tx.second_factors().sealed_with_other_key("0000000b", "", 10).empty());
  });
}

// 12.2.3: a secret is sealed anew only if it is still the one that was
// read: a factor enrolled again meanwhile (another transaction, another
// instance) is not overwritten with the old secret.
TYPED_TEST(StoreConformanceSecondFactors, Interface_12_2_ResealLeavesAReplacedSecretAlone) {
  UserRecord u = this->stored_user("reseal@example.com");
  this->write([&](Transaction& tx) {
    tx.second_factors().put_pending_totp({u.id, "v1.0000000a.old", 1'000});
    auto read = tx.second_factors().totp_of(u.id);
    ASSERT_TRUE(read);
    tx.second_factors().put_pending_totp({u.id, "v1.0000000b.enrolled-again", 2'000});
    EXPECT_FALSE(
        tx.second_factors().reseal_totp(u.id, read->sealed_secret, "v1.0000000b.old-resealed"));
    EXPECT_EQ(tx.second_factors().totp_of(u.id)->sealed_secret, "v1.0000000b.enrolled-again");
  });
}

// 10.6 and 12.4: erasing an account leaves no factor and no code behind.
TYPED_TEST(StoreConformanceSecondFactors, Interface_10_6_ErasureRemovesTheFactorAndCodes) {
  UserRecord u = this->stored_user("erase@example.com");
  this->write([&](Transaction& tx) {
    tx.second_factors().put_pending_totp({u.id, "v1.s", 1'000});
    tx.second_factors().confirm_totp(u.id, "v1.s", 1, 1'000);
    tx.second_factors().replace_recovery_codes(u.id, {sha256("a")});
    erase_account(tx, u);
  });
  this->read([&](Transaction& tx) {
    EXPECT_FALSE(tx.second_factors().totp_of(u.id));
    EXPECT_EQ(tx.second_factors().recovery_codes_left(u.id), 0);
  });
}

}  // namespace
}  // namespace authd
