// The store conformance suite for the passkeys area (interface.md 16.6),
// run unchanged on SQLite and on PostgreSQL (the PostgreSQL cases skip
// unless AUTHD_TEST_POSTGRES names a server; scripts/test.sh runs them
// there): a challenge is taken once, whatever it was for and whether or not
// it had expired; a credential id is registered once; a counter moves only
// from the value that was read; a passkey is removed only by its account;
// deleting an account's row takes its passkeys and registration challenges.
#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

#include "store_conformance_fixture.hpp"

namespace authd {
namespace {

template <class Backend>
class StoreConformancePasskeys : public StoreConformanceFixture<Backend> {
 protected:
  static PasskeyRecord passkey(const std::string& id, const std::string& user_id,
                               Millis created_at = 1'000) {
    PasskeyRecord p;
    p.id = id;
    p.user_id = user_id;
    p.name = "Key " + id;
    p.algorithm = -7;
    p.public_key = "BAAB" + id;
    p.sign_count = 0;
    p.backed_up = false;
    p.created_at = created_at;
    return p;
  }

  void put(const std::string& challenge, ChallengePurpose purpose, const std::string& user_id,
           Millis expires_at) {
    this->write([&](Transaction& tx) {
      tx.passkeys().put_challenge(sha256(challenge), purpose, user_id, expires_at);
    });
  }

  // Takes the challenge in a transaction of its own.
  std::optional<std::string> take(const std::string& challenge, ChallengePurpose purpose,
                                  Millis now) {
    std::optional<std::string> taken;
    this->write([&](Transaction& tx) {
      taken = tx.passkeys().take_challenge(sha256(challenge), purpose, now);
    });
    return taken;
  }

  std::vector<std::string> ids_of(const std::string& user_id) {
    std::vector<std::string> ids;
    this->read([&](Transaction& tx) {
      for (const PasskeyRecord& p : tx.passkeys().of_user(user_id)) ids.push_back(p.id);
    });
    return ids;
  }
};

using Backends = ::testing::Types<OnSqlite, OnPostgres>;
TYPED_TEST_SUITE(StoreConformancePasskeys, Backends);

constexpr auto kRegistration = ChallengePurpose::registration;
constexpr auto kSignIn = ChallengePurpose::sign_in;

// 16.6.2: a challenge is used once: the first take gets it, a second finds
// nothing, for either purpose.
TYPED_TEST(StoreConformancePasskeys, Interface_16_6_2_AChallengeIsTakenOnceWhateverItsPurpose) {
  UserRecord u = this->stored_user("once@example.com");
  this->put("register", kRegistration, u.id, 10'000);
  this->put("sign-in", kSignIn, "", 10'000);

  EXPECT_EQ(this->take("register", kRegistration, 2'000), std::optional<std::string>(u.id));
  EXPECT_EQ(this->take("register", kRegistration, 2'000), std::nullopt);
  EXPECT_EQ(this->take("sign-in", kSignIn, 2'000), std::optional<std::string>(""));
  EXPECT_EQ(this->take("sign-in", kSignIn, 2'000), std::nullopt);
  EXPECT_EQ(this->take("never-issued", kSignIn, 2'000), std::nullopt);

  // Twice in one transaction too: the second take sees the first's DELETE.
  this->put("same-transaction", kSignIn, "", 10'000);
  this->write([&](Transaction& tx) {
    EXPECT_EQ(tx.passkeys().take_challenge(sha256("same-transaction"), kSignIn, 2'000),
              std::optional<std::string>(""));
    EXPECT_EQ(tx.passkeys().take_challenge(sha256("same-transaction"), kSignIn, 2'000),
              std::nullopt);
  });
}

// 16.6.2: a challenge is for one purpose; a response of the other kind that
// names it gets nothing, and uses it up: the right kind then finds nothing.
TYPED_TEST(StoreConformancePasskeys, Interface_16_6_2_ATakeForTheWrongPurposeUsesTheChallengeUp) {
  UserRecord u = this->stored_user("purpose@example.com");
  this->put("register", kRegistration, u.id, 10'000);
  this->put("sign-in", kSignIn, "", 10'000);

  EXPECT_EQ(this->take("register", kSignIn, 2'000), std::nullopt);
  EXPECT_EQ(this->take("register", kRegistration, 2'000), std::nullopt);
  EXPECT_EQ(this->take("sign-in", kRegistration, 2'000), std::nullopt);
  EXPECT_EQ(this->take("sign-in", kSignIn, 2'000), std::nullopt);
  std::int64_t pruned = -1;
  this->write([&](Transaction& tx) { pruned = tx.passkeys().prune(1'000'000); });
  EXPECT_EQ(pruned, 0);  // nothing was left behind
}

// 16.6.2: a challenge lives until its expiry (exclusive: at expires_at it
// has expired, as prune counts it); an expired one gives nothing and is
// used up by the take.
TYPED_TEST(StoreConformancePasskeys, Interface_16_6_2_AnExpiredChallengeGivesNothing) {
  UserRecord u = this->stored_user("expired@example.com");
  this->put("late", kRegistration, u.id, 5'000);
  this->put("at-expiry", kSignIn, "", 5'000);
  this->put("just-in-time", kSignIn, "", 5'000);

  EXPECT_EQ(this->take("late", kRegistration, 5'001), std::nullopt);
  EXPECT_EQ(this->take("late", kRegistration, 1'000), std::nullopt);  // gone, not only expired
  EXPECT_EQ(this->take("at-expiry", kSignIn, 5'000), std::nullopt);
  EXPECT_EQ(this->take("just-in-time", kSignIn, 4'999), std::optional<std::string>(""));
}

// 16.6.2: a registration challenge carries its account; a sign-in one
// none (""), whoever signs in with it.
TYPED_TEST(StoreConformancePasskeys, Interface_16_6_2_ARegistrationChallengeCarriesItsAccount) {
  UserRecord a = this->stored_user("a@example.com");
  UserRecord b = this->stored_user("b@example.com");
  this->put("for-a", kRegistration, a.id, 10'000);
  this->put("for-b", kRegistration, b.id, 10'000);
  this->put("anyone", kSignIn, "", 10'000);

  EXPECT_EQ(this->take("for-b", kRegistration, 1'000), std::optional<std::string>(b.id));
  EXPECT_EQ(this->take("anyone", kSignIn, 1'000), std::optional<std::string>(""));
  EXPECT_EQ(this->take("for-a", kRegistration, 1'000), std::optional<std::string>(a.id));
}

// 16.6.2: prune removes the challenges expired at `now` (at or
// before it), counts them, and leaves the live ones to be taken.
TYPED_TEST(StoreConformancePasskeys, Interface_16_6_2_PruneRemovesOnlyExpiredChallenges) {
  UserRecord u = this->stored_user("prune@example.com");
  this->put("first", kSignIn, "", 1'000);
  this->put("second", kRegistration, u.id, 2'000);
  this->put("third", kSignIn, "", 3'000);
  this->put("fourth", kRegistration, u.id, 4'000);

  std::int64_t pruned = -1;
  this->write([&](Transaction& tx) { pruned = tx.passkeys().prune(2'000); });
  EXPECT_EQ(pruned, 2);
  this->write([&](Transaction& tx) { pruned = tx.passkeys().prune(2'000); });
  EXPECT_EQ(pruned, 0);

  // The pruned ones are gone even for a take that would still find them live.
  EXPECT_EQ(this->take("first", kSignIn, 500), std::nullopt);
  EXPECT_EQ(this->take("second", kRegistration, 500), std::nullopt);
  EXPECT_EQ(this->take("third", kSignIn, 2'500), std::optional<std::string>(""));
  EXPECT_EQ(this->take("fourth", kRegistration, 2'500), std::optional<std::string>(u.id));
}

// 16.6.1: a passkey reads back by its credential id with every column, not
// yet used.
TYPED_TEST(StoreConformancePasskeys, Interface_16_6_1_APasskeyReadsBackWithEveryColumn) {
  UserRecord u = this->stored_user("columns@example.com");
  PasskeyRecord p;
  p.id = "AbC-dEf_123-xyz";
  p.user_id = u.id;
  p.name = "Ann’s YubiKey 5 \"NFC\"";  // not only ASCII
  p.algorithm = -8;
  p.public_key = "pQECAyYgASFYIBXq-_0aZ9kLmN3oPqRsTuVwXyZ01234567890abcdefghIJKLMNOPQRS_-";
  p.sign_count = 4'294'967'295;  // the largest a 32-bit counter says
  p.backed_up = true;
  p.created_at = 1'700'000'000'123;
  this->write([&](Transaction& tx) { EXPECT_TRUE(tx.passkeys().insert(p)); });

  PasskeyRecord es256 = TestFixture::passkey("es256", u.id, 1'700'000'000'124);
  this->write([&](Transaction& tx) { EXPECT_TRUE(tx.passkeys().insert(es256)); });

  this->read([&](Transaction& tx) {
    auto found = tx.passkeys().by_id(p.id);
    ASSERT_TRUE(found);
    EXPECT_EQ(found->id, p.id);
    EXPECT_EQ(found->user_id, u.id);
    EXPECT_EQ(found->name, p.name);
    EXPECT_EQ(found->algorithm, -8);
    EXPECT_EQ(found->public_key, p.public_key);
    EXPECT_EQ(found->sign_count, 4'294'967'295);
    EXPECT_TRUE(found->backed_up);
    EXPECT_EQ(found->created_at, 1'700'000'000'123);
    EXPECT_EQ(found->last_used_at, std::nullopt);

    auto other = tx.passkeys().by_id("es256");
    ASSERT_TRUE(other);
    EXPECT_EQ(other->algorithm, -7);
    EXPECT_EQ(other->sign_count, 0);
    EXPECT_FALSE(other->backed_up);
    EXPECT_EQ(other->last_used_at, std::nullopt);

    EXPECT_FALSE(tx.passkeys().by_id("unknown"));
    EXPECT_FALSE(tx.passkeys().by_id("abc-def_123-xyz"));  // ids are case-sensitive
  });
}

// 16.2.2: a credential id is registered once, to anyone: the second insert
// is false and changes nothing.
TYPED_TEST(StoreConformancePasskeys, Interface_16_2_2_ACredentialIdIsRegisteredOnce) {
  UserRecord a = this->stored_user("first@example.com");
  UserRecord b = this->stored_user("second@example.com");
  this->write([&](Transaction& tx) {
    EXPECT_TRUE(tx.passkeys().insert(TestFixture::passkey("cred", a.id)));
  });
  this->write([&](Transaction& tx) {
    PasskeyRecord again = TestFixture::passkey("cred", a.id, 2'000);
    again.name = "again";
    EXPECT_FALSE(tx.passkeys().insert(again));
    PasskeyRecord other = TestFixture::passkey("cred", b.id, 2'000);
    other.name = "someone else's";
    EXPECT_FALSE(tx.passkeys().insert(other));
  });
  this->read([&](Transaction& tx) {
    auto found = tx.passkeys().by_id("cred");
    ASSERT_TRUE(found);
    EXPECT_EQ(found->user_id, a.id);
    EXPECT_EQ(found->name, "Key cred");
    EXPECT_EQ(found->created_at, 1'000);
    EXPECT_EQ(tx.passkeys().count_of(a.id), 1);
    EXPECT_EQ(tx.passkeys().count_of(b.id), 0);
  });
}

// 16.5.1: an account's passkeys, oldest first, and only its own; count_of
// counts the same. Passkeys added in the same millisecond come by id, in
// byte order, on either backend.
TYPED_TEST(StoreConformancePasskeys, Interface_16_5_1_AnAccountsPasskeysComeOldestFirst) {
  UserRecord u = this->stored_user("list@example.com");
  UserRecord other = this->stored_user("other@example.com");
  UserRecord none = this->stored_user("none@example.com");
  this->write([&](Transaction& tx) {
    EXPECT_TRUE(tx.passkeys().insert(TestFixture::passkey("newest", u.id, 3'000)));
    EXPECT_TRUE(tx.passkeys().insert(TestFixture::passkey("oldest", u.id, 1'000)));
    EXPECT_TRUE(tx.passkeys().insert(TestFixture::passkey("theirs", other.id, 2'000)));
    EXPECT_TRUE(tx.passkeys().insert(TestFixture::passkey("b-tie", u.id, 2'000)));
    EXPECT_TRUE(tx.passkeys().insert(TestFixture::passkey("B-tie", u.id, 2'000)));
  });
  EXPECT_EQ(this->ids_of(u.id), (std::vector<std::string>{"oldest", "B-tie", "b-tie", "newest"}));
  EXPECT_EQ(this->ids_of(other.id), (std::vector<std::string>{"theirs"}));
  EXPECT_TRUE(this->ids_of(none.id).empty());
  this->read([&](Transaction& tx) {
    EXPECT_EQ(tx.passkeys().count_of(u.id), 4);
    EXPECT_EQ(tx.passkeys().count_of(other.id), 1);
    EXPECT_EQ(tx.passkeys().count_of(none.id), 0);
    EXPECT_EQ(tx.passkeys().count_of("no-such-account"), 0);
    auto listed = tx.passkeys().of_user(u.id);
    ASSERT_EQ(listed.size(), 4u);
    EXPECT_EQ(listed[0].created_at, 1'000);
    EXPECT_EQ(listed[0].name, "Key oldest");
    EXPECT_EQ(listed[3].created_at, 3'000);
  });
}

// 16.3.2 and 16.4: a use moves the counter from the value that was read,
// and records the backup state and the time; a use that read a counter
// another use has moved since is refused and changes nothing.
TYPED_TEST(StoreConformancePasskeys, Interface_16_3_2_AUseMovesTheCounterOnlyFromTheValueRead) {
  UserRecord u = this->stored_user("use@example.com");
  PasskeyRecord p = TestFixture::passkey("counter", u.id);
  p.sign_count = 5;
  this->write([&](Transaction& tx) { EXPECT_TRUE(tx.passkeys().insert(p)); });

  this->write([&](Transaction& tx) {
    EXPECT_TRUE(tx.passkeys().record_use("counter", 5, 6, true, 2'000));
  });
  this->read([&](Transaction& tx) {
    auto found = tx.passkeys().by_id("counter");
    ASSERT_TRUE(found);
    EXPECT_EQ(found->sign_count, 6);
    EXPECT_TRUE(found->backed_up);
    EXPECT_EQ(found->last_used_at, std::optional<Millis>(2'000));
    EXPECT_EQ(found->created_at, 1'000);
  });

  // Stale: read 5 while another use moved it to 6.
  this->write([&](Transaction& tx) {
    EXPECT_FALSE(tx.passkeys().record_use("counter", 5, 7, false, 3'000));
    EXPECT_FALSE(tx.passkeys().record_use("unknown", 6, 7, false, 3'000));
  });
  this->read([&](Transaction& tx) {
    auto found = tx.passkeys().by_id("counter");
    ASSERT_TRUE(found);
    EXPECT_EQ(found->sign_count, 6);
    EXPECT_TRUE(found->backed_up);
    EXPECT_EQ(found->last_used_at, std::optional<Millis>(2'000));
  });

  // From the current value: accepted, and backed_up can go back to false.
  this->write([&](Transaction& tx) {
    EXPECT_TRUE(tx.passkeys().record_use("counter", 6, 9, false, 4'000));
  });
  this->read([&](Transaction& tx) {
    auto found = tx.passkeys().by_id("counter");
    ASSERT_TRUE(found);
    EXPECT_EQ(found->sign_count, 9);
    EXPECT_FALSE(found->backed_up);
    EXPECT_EQ(found->last_used_at, std::optional<Millis>(4'000));
  });
}

// 16.3.2: an authenticator without a counter says 0 every time; each use
// is still recorded (the counter read is 0, and stays 0).
TYPED_TEST(StoreConformancePasskeys, Interface_16_3_2_AUseOfAPasskeyWithoutCounterIsRecorded) {
  UserRecord u = this->stored_user("zero@example.com");
  this->write([&](Transaction& tx) {
    EXPECT_TRUE(tx.passkeys().insert(TestFixture::passkey("zero", u.id)));
  });
  this->write([&](Transaction& tx) {
    EXPECT_TRUE(tx.passkeys().record_use("zero", 0, 0, true, 2'000));
    EXPECT_TRUE(tx.passkeys().record_use("zero", 0, 0, true, 3'000));
  });
  this->read([&](Transaction& tx) {
    auto found = tx.passkeys().by_id("zero");
    ASSERT_TRUE(found);
    EXPECT_EQ(found->sign_count, 0);
    EXPECT_EQ(found->last_used_at, std::optional<Millis>(3'000));
  });
}

// 16.5.2: a passkey is removed by its account only, once; 12.4 and 16.6.3:
// removing all of an account's passkeys says how many went, and leaves the
// other accounts' alone.
TYPED_TEST(StoreConformancePasskeys, Interface_16_5_2_APasskeyIsRemovedByItsAccountOnlyAndOnce) {
  UserRecord u = this->stored_user("owner@example.com");
  UserRecord other = this->stored_user("intruder@example.com");
  this->write([&](Transaction& tx) {
    EXPECT_TRUE(tx.passkeys().insert(TestFixture::passkey("one", u.id, 1'000)));
    EXPECT_TRUE(tx.passkeys().insert(TestFixture::passkey("two", u.id, 2'000)));
    EXPECT_TRUE(tx.passkeys().insert(TestFixture::passkey("three", u.id, 3'000)));
    EXPECT_TRUE(tx.passkeys().insert(TestFixture::passkey("theirs", other.id, 1'000)));
  });
  this->write([&](Transaction& tx) {
    EXPECT_FALSE(tx.passkeys().remove(other.id, "one"));  // not theirs
    EXPECT_FALSE(tx.passkeys().remove(u.id, "unknown"));
    EXPECT_FALSE(tx.passkeys().remove(u.id, "theirs"));
    EXPECT_TRUE(tx.passkeys().remove(u.id, "one"));
    EXPECT_FALSE(tx.passkeys().remove(u.id, "one"));
  });
  EXPECT_EQ(this->ids_of(u.id), (std::vector<std::string>{"two", "three"}));
  EXPECT_EQ(this->ids_of(other.id), (std::vector<std::string>{"theirs"}));

  std::int64_t removed = -1;
  this->write([&](Transaction& tx) { removed = tx.passkeys().remove_all_of(u.id); });
  EXPECT_EQ(removed, 2);
  this->write([&](Transaction& tx) { removed = tx.passkeys().remove_all_of(u.id); });
  EXPECT_EQ(removed, 0);
  this->read([&](Transaction& tx) {
    EXPECT_EQ(tx.passkeys().count_of(u.id), 0);
    EXPECT_FALSE(tx.passkeys().by_id("two"));
    EXPECT_EQ(tx.passkeys().count_of(other.id), 1);
    EXPECT_TRUE(tx.passkeys().by_id("theirs"));
  });
}

// 16.6.3 and 10.6: deleting an account's row (the last step of erasure)
// takes its passkeys and its registration challenges with it; other
// accounts' passkeys and challenges, and sign-in challenges, stay.
TYPED_TEST(StoreConformancePasskeys,
           Interface_16_6_3_DeletingTheAccountTakesItsPasskeysAndChallenges) {
  UserRecord u = this->stored_user("gone@example.com");
  UserRecord other = this->stored_user("stays@example.com");
  this->write([&](Transaction& tx) {
    EXPECT_TRUE(tx.passkeys().insert(TestFixture::passkey("gone-1", u.id, 1'000)));
    EXPECT_TRUE(tx.passkeys().insert(TestFixture::passkey("gone-2", u.id, 2'000)));
    EXPECT_TRUE(tx.passkeys().insert(TestFixture::passkey("stays", other.id, 1'000)));
  });
  this->put("gone-register", kRegistration, u.id, 10'000);
  this->put("other-register", kRegistration, other.id, 10'000);
  this->put("sign-in", kSignIn, "", 10'000);

  this->write([&](Transaction& tx) { EXPECT_TRUE(tx.users().remove(u.id)); });

  this->read([&](Transaction& tx) {
    EXPECT_FALSE(tx.passkeys().by_id("gone-1"));
    EXPECT_FALSE(tx.passkeys().by_id("gone-2"));
    EXPECT_EQ(tx.passkeys().count_of(u.id), 0);
    EXPECT_TRUE(tx.passkeys().of_user(u.id).empty());
    EXPECT_TRUE(tx.passkeys().by_id("stays"));
    EXPECT_EQ(tx.passkeys().count_of(other.id), 1);
  });
  EXPECT_EQ(this->take("gone-register", kRegistration, 1'000), std::nullopt);
  std::int64_t pruned = -1;
  this->write([&](Transaction& tx) { pruned = tx.passkeys().prune(1'000'000); });
  EXPECT_EQ(pruned, 2);  // the other account's registration and the sign-in: nothing else left
}

}  // namespace
}  // namespace authd
