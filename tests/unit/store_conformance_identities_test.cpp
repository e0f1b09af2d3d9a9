// The store conformance suite for the identities area (interface.md 18.3,
// 18.4), run unchanged on SQLite and on PostgreSQL (the PostgreSQL cases
// skip unless AUTHD_TEST_POSTGRES names a server; scripts/test.sh runs them
// there): a (provider, subject) links one account at most; a link reads
// back with every column; an account's links list oldest first; a use is
// recorded; removal by id and by account; deleting an account's row takes
// its links.
#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

#include "store_conformance_fixture.hpp"

namespace authd {
namespace {

template <class Backend>
class StoreConformanceIdentities : public StoreConformanceFixture<Backend> {
 protected:
  static IdentityRecord link(const std::string& id, const std::string& user_id,
                             const std::string& provider, const std::string& subject,
                             Millis created_at = 1'000) {
    return IdentityRecord{id, user_id, provider, subject, "", created_at, std::nullopt};
  }

  bool insert(const IdentityRecord& identity) {
    bool inserted = false;
    this->write([&](Transaction& tx) { inserted = tx.identities().insert(identity); });
    return inserted;
  }

  std::vector<std::string> ids_of(const std::string& user_id) {
    std::vector<std::string> ids;
    this->read([&](Transaction& tx) {
      for (const IdentityRecord& i : tx.identities().of_user(user_id)) ids.push_back(i.id);
    });
    return ids;
  }
};

using Backends = ::testing::Types<OnSqlite, OnPostgres>;
TYPED_TEST_SUITE(StoreConformanceIdentities, Backends);

// 18.3: a link reads back, by its id and by (provider, subject), with
// every column; the e-mail empty is stored as none.
TYPED_TEST(StoreConformanceIdentities, Interface_18_3_ALinkReadsBackWithEveryColumn) {
  UserRecord u = this->stored_user("columns@example.com");
  IdentityRecord full{"0b6c1f5e-4d7a-4b8e-9c1d-2e3f4a5b6c7d",
                      u.id,
                      "corp",
                      "248289761001",
                      "ann@corp.example",
                      1'700'000'000'123,
                      1'700'000'000'456};
  IdentityRecord bare = TestFixture::link("bare", u.id, "github", "583231", 1'700'000'000'124);
  EXPECT_TRUE(this->insert(full));
  EXPECT_TRUE(this->insert(bare));

  this->read([&](Transaction& tx) {
    auto found = tx.identities().by_id(full.id);
    ASSERT_TRUE(found);
    EXPECT_EQ(found->user_id, u.id);
    EXPECT_EQ(found->provider, "corp");
    EXPECT_EQ(found->subject, "248289761001");
    EXPECT_EQ(found->email, "ann@corp.example");
    EXPECT_EQ(found->created_at, 1'700'000'000'123);
    EXPECT_EQ(found->last_used_at, std::optional<Millis>(1'700'000'000'456));

    auto by_subject = tx.identities().by_subject("github", "583231");
    ASSERT_TRUE(by_subject);
    EXPECT_EQ(by_subject->id, "bare");
    EXPECT_EQ(by_subject->email, "");
    EXPECT_EQ(by_subject->last_used_at, std::nullopt);

    EXPECT_FALSE(tx.identities().by_subject("corp", "583231"));  // a subject is per provider
    EXPECT_FALSE(tx.identities().by_subject("github", "248289761001"));
    EXPECT_FALSE(tx.identities().by_subject("Corp", "248289761001"));  // names are exact
    EXPECT_FALSE(tx.identities().by_id("unknown"));
  });
}

// 18.3: a (provider, subject) links one account at most: a second link of
// it, to the same account or another, is refused and changes nothing; the
// same subject at another provider is another identity.
TYPED_TEST(StoreConformanceIdentities, Interface_18_3_AProviderSubjectLinksOneAccountAtMost) {
  UserRecord a = this->stored_user("a@example.com");
  UserRecord b = this->stored_user("b@example.com");
  EXPECT_TRUE(this->insert(TestFixture::link("first", a.id, "corp", "42")));
  EXPECT_FALSE(this->insert(TestFixture::link("second", b.id, "corp", "42")));
  EXPECT_FALSE(this->insert(TestFixture::link("again", a.id, "corp", "42")));
  EXPECT_FALSE(this->insert(TestFixture::link("first", b.id, "github", "7")));  // id taken
  EXPECT_TRUE(this->insert(TestFixture::link("other-provider", b.id, "github", "42")));

  EXPECT_EQ(this->ids_of(a.id), std::vector<std::string>{"first"});
  EXPECT_EQ(this->ids_of(b.id), std::vector<std::string>{"other-provider"});
}

// 18.4: an account's links list oldest first, and count; another
// account's are not among them.
TYPED_TEST(StoreConformanceIdentities, Interface_18_4_AnAccountsLinksListOldestFirst) {
  UserRecord a = this->stored_user("list@example.com");
  UserRecord b = this->stored_user("other@example.com");
  EXPECT_TRUE(this->insert(TestFixture::link("newest", a.id, "corp", "1", 3'000)));
  EXPECT_TRUE(this->insert(TestFixture::link("oldest", a.id, "github", "1", 1'000)));
  EXPECT_TRUE(this->insert(TestFixture::link("middle", a.id, "gitlab", "1", 2'000)));
  EXPECT_TRUE(this->insert(TestFixture::link("not-a", b.id, "corp", "2", 1'500)));

  EXPECT_EQ(this->ids_of(a.id), (std::vector<std::string>{"oldest", "middle", "newest"}));
  this->read([&](Transaction& tx) {
    EXPECT_EQ(tx.identities().count_of(a.id), 3);
    EXPECT_EQ(tx.identities().count_of(b.id), 1);
    EXPECT_EQ(tx.identities().count_of("nobody"), 0);
    EXPECT_TRUE(tx.identities().of_user("nobody").empty());
  });
}

// 18.3: a sign-in through a link records when; nothing else changes.
TYPED_TEST(StoreConformanceIdentities, Interface_18_3_ASignInRecordsItsTime) {
  UserRecord u = this->stored_user("used@example.com");
  EXPECT_TRUE(this->insert(TestFixture::link("used", u.id, "corp", "9", 1'000)));
  this->write([&](Transaction& tx) { tx.identities().record_use("used", 5'000); });
  this->write([&](Transaction& tx) { tx.identities().record_use("used", 7'000); });
  this->read([&](Transaction& tx) {
    auto found = tx.identities().by_id("used");
    ASSERT_TRUE(found);
    EXPECT_EQ(found->last_used_at, std::optional<Millis>(7'000));
    EXPECT_EQ(found->created_at, 1'000);
    EXPECT_EQ(found->user_id, u.id);
  });
}

// 18.4: a link is removed by its id, once; remove_all_of takes an
// account's links and no other's.
TYPED_TEST(StoreConformanceIdentities, Interface_18_4_LinksAreRemovedByIdAndByAccount) {
  UserRecord a = this->stored_user("remove@example.com");
  UserRecord b = this->stored_user("keep@example.com");
  EXPECT_TRUE(this->insert(TestFixture::link("one", a.id, "corp", "1")));
  EXPECT_TRUE(this->insert(TestFixture::link("two", a.id, "github", "1")));
  EXPECT_TRUE(this->insert(TestFixture::link("three", a.id, "gitlab", "1")));
  EXPECT_TRUE(this->insert(TestFixture::link("kept", b.id, "corp", "2")));

  bool removed = false;
  this->write([&](Transaction& tx) { removed = tx.identities().remove("one"); });
  EXPECT_TRUE(removed);
  this->write([&](Transaction& tx) { removed = tx.identities().remove("one"); });
  EXPECT_FALSE(removed);
  std::int64_t count = -1;
  this->write([&](Transaction& tx) { count = tx.identities().remove_all_of(a.id); });
  EXPECT_EQ(count, 2);
  EXPECT_TRUE(this->ids_of(a.id).empty());
  EXPECT_EQ(this->ids_of(b.id), std::vector<std::string>{"kept"});
  // The subject is free again: a new link of it may be made.
  EXPECT_TRUE(this->insert(TestFixture::link("relinked", b.id, "corp", "1")));
}

// 18.4: deleting an account's row takes its links with it.
TYPED_TEST(StoreConformanceIdentities, Interface_18_4_DeletingTheAccountTakesItsLinks) {
  UserRecord u = this->stored_user("gone@example.com");
  EXPECT_TRUE(this->insert(TestFixture::link("gone", u.id, "corp", "3")));
  this->write([&](Transaction& tx) { EXPECT_TRUE(tx.users().remove(u.id)); });
  this->read([&](Transaction& tx) {
    EXPECT_FALSE(tx.identities().by_id("gone"));
    EXPECT_FALSE(tx.identities().by_subject("corp", "3"));
  });
}

}  // namespace
}  // namespace authd
