// The store conformance suite for the upstream tokens kept on a link
// (interface.md 18.5), run unchanged on SQLite and on PostgreSQL (the
// PostgreSQL cases skip unless AUTHD_TEST_POSTGRES names a server;
// scripts/test.sh runs them there): the sealed text and its time read
// back, a second keep replaces the first, forgetting drops them once, and
// they go with the link's row (an unlink, an account's erasure), and a
// configuration that keeps none for a provider drops what it kept.
#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

#include "store_conformance_fixture.hpp"

namespace authd {
namespace {

template <class Backend>
class StoreConformanceKeptTokens : public StoreConformanceFixture<Backend> {
 protected:
  IdentityRecord linked(const std::string& id, const std::string& user_id,
                        const std::string& provider = "corp") {
    IdentityRecord link{id, user_id, provider, "sub-" + id, "", 1'000, std::nullopt};
    this->write([&](Transaction& tx) { ASSERT_TRUE(tx.identities().insert(link)); });
    return link;
  }
  bool keep(const std::string& id, const std::string& sealed, Millis at) {
    bool kept = false;
    this->write([&](Transaction& tx) {
      kept = tx.identities().keep_tokens(id, KeptTokensRecord{sealed, at});
    });
    return kept;
  }
  std::optional<KeptTokensRecord> kept(const std::string& id) {
    std::optional<KeptTokensRecord> found;
    this->read([&](Transaction& tx) { found = tx.identities().kept_tokens(id); });
    return found;
  }
  bool forget(const std::string& id) {
    bool forgotten = false;
    this->write([&](Transaction& tx) { forgotten = tx.identities().forget_tokens(id); });
    return forgotten;
  }
};

using Backends = ::testing::Types<OnSqlite, OnPostgres>;
TYPED_TEST_SUITE(StoreConformanceKeptTokens, Backends);

// 18.5: a link keeps nothing until told; what it keeps reads back, and the
// next keep replaces it (one set of tokens per link).
TYPED_TEST(StoreConformanceKeptTokens, Interface_18_5_KeptTokensReadBackAndAreReplaced) {
  UserRecord u = this->stored_user("kept@example.com");
  this->linked("link-a", u.id);
  this->linked("link-b", u.id);
  EXPECT_FALSE(this->kept("link-a"));

  EXPECT_TRUE(this->keep("link-a", "v1.0a1b2c3d.first", 1'700'000'000'001));
  auto first = this->kept("link-a");
  ASSERT_TRUE(first);
  EXPECT_EQ(first->sealed, "v1.0a1b2c3d.first");
  EXPECT_EQ(first->stored_at, 1'700'000'000'001);
  EXPECT_FALSE(this->kept("link-b"));  // per link

  EXPECT_TRUE(this->keep("link-a", "v1.0a1b2c3d.second", 1'700'000'000'002));
  auto second = this->kept("link-a");
  ASSERT_TRUE(second);
  EXPECT_EQ(second->sealed, "v1.0a1b2c3d.second");
  EXPECT_EQ(second->stored_at, 1'700'000'000'002);

  EXPECT_FALSE(this->keep("unknown", "v1.0a1b2c3d.x", 1));
  EXPECT_FALSE(this->kept("unknown"));
  // The link itself reads as before.
  this->read([&](Transaction& tx) {
    auto link = tx.identities().by_id("link-a");
    ASSERT_TRUE(link);
    EXPECT_EQ(link->subject, "sub-link-a");
    EXPECT_EQ(tx.identities().of_user(u.id).size(), 2u);
  });
}

// 18.5: keep-tokens turned off drops what a link kept, once; the link stays.
TYPED_TEST(StoreConformanceKeptTokens, Interface_18_5_ForgettingDropsTheTokensOnce) {
  UserRecord u = this->stored_user("forget@example.com");
  this->linked("link-f", u.id);
  EXPECT_FALSE(this->forget("link-f"));  // nothing kept yet
  ASSERT_TRUE(this->keep("link-f", "v1.0a1b2c3d.kept", 5));
  EXPECT_TRUE(this->forget("link-f"));
  EXPECT_FALSE(this->kept("link-f"));
  EXPECT_FALSE(this->forget("link-f"));
  EXPECT_FALSE(this->forget("unknown"));
  this->read([&](Transaction& tx) { EXPECT_TRUE(tx.identities().by_id("link-f")); });
}

// 18.5, 18.4: the tokens are in the link's row: an unlink and an account's
// erasure take them; a new link under the same id keeps nothing.
TYPED_TEST(StoreConformanceKeptTokens, Interface_18_5_KeptTokensGoWithTheLink) {
  UserRecord u = this->stored_user("gone@example.com");
  this->linked("link-u", u.id);
  this->linked("link-e", u.id);
  ASSERT_TRUE(this->keep("link-u", "v1.0a1b2c3d.u", 5));
  ASSERT_TRUE(this->keep("link-e", "v1.0a1b2c3d.e", 5));

  this->write([&](Transaction& tx) { EXPECT_TRUE(tx.identities().remove("link-u")); });
  EXPECT_FALSE(this->kept("link-u"));
  this->linked("link-u", u.id);
  EXPECT_FALSE(this->kept("link-u"));

  this->write([&](Transaction& tx) { EXPECT_TRUE(tx.users().remove(u.id)); });
  EXPECT_FALSE(this->kept("link-e"));
  UserRecord v = this->stored_user("again@example.com");
  this->linked("link-e", v.id);
  EXPECT_FALSE(this->kept("link-e"));
}

// 12.2.3: authd mfa reseal finds the links whose tokens another key sealed,
// in id order after the last one seen, and replaces a sealed text only
// while it is still the one read (a sign-in may keep new tokens meanwhile).
TYPED_TEST(StoreConformanceKeptTokens,
           Interface_12_2_3_ResealFindsOtherKeysAndReplacesOnlyWhatItRead) {
  UserRecord u = this->stored_user("reseal@example.com");
  for (const char* id : {"link-1", "link-2", "link-3", "link-4"}) this->linked(id, u.id);
  ASSERT_TRUE(this->keep("link-1", "v1.0ld0ld00.one", 5));
  ASSERT_TRUE(this->keep("link-2", "v1.0a1b2c3d.two", 5));  // the current key's
  ASSERT_TRUE(this->keep("link-3", "v1.0ld0ld00.three", 5));
  // link-4 keeps nothing.
  std::vector<SealedKeptTokens> found;
  this->read([&](Transaction& tx) {
    found = tx.identities().kept_tokens_sealed_with_other_key("0a1b2c3d", "", 10);
  });
  ASSERT_EQ(found.size(), 2u);
  EXPECT_EQ(found[0].identity_id, "link-1");
  EXPECT_EQ(found[0].sealed, "v1.0ld0ld00.one");
  EXPECT_EQ(found[1].identity_id, "link-3");
  this->read([&](Transaction& tx) {
    found = tx.identities().kept_tokens_sealed_with_other_key("0a1b2c3d", "link-1", 10);
    ASSERT_EQ(found.size(), 1u);
    EXPECT_EQ(found[0].identity_id, "link-3");
    EXPECT_EQ(tx.identities().kept_tokens_sealed_with_other_key("0a1b2c3d", "", 1).size(), 1u);
  });

  bool replaced = false;
  this->write([&](Transaction& tx) {
    replaced = tx.identities().reseal_kept_tokens("link-1", "v1.0ld0ld00.one", "v1.0a1b2c3d.one");
  });
  EXPECT_TRUE(replaced);
  EXPECT_EQ(this->kept("link-1")->sealed, "v1.0a1b2c3d.one");
  EXPECT_EQ(this->kept("link-1")->stored_at, 5);              // the same tokens: their time stays
  ASSERT_TRUE(this->keep("link-3", "v1.0a1b2c3d.newer", 6));  // a sign-in meanwhile
  this->write([&](Transaction& tx) {
    replaced = tx.identities().reseal_kept_tokens("link-3", "v1.0ld0ld00.three", "v1.0a1b2c3d.x");
  });
  EXPECT_FALSE(replaced);
  EXPECT_EQ(this->kept("link-3")->sealed, "v1.0a1b2c3d.newer");
  this->read([&](Transaction& tx) {
    EXPECT_TRUE(tx.identities().kept_tokens_sealed_with_other_key("0a1b2c3d", "", 10).empty());
  });
}

// 18.5.1: tokens are kept only for a provider configured to keep them: the
// sweep drops those of the others (a provider turned off or gone), only
// those kept before the cut-off, at most `limit` at a time, and leaves the
// links themselves.
TYPED_TEST(StoreConformanceKeptTokens,
           Interface_18_5_1_TokensOfProvidersNotKeepingThemAreForgotten) {
  UserRecord u = this->stored_user("sweep@example.com");
  this->linked("link-k", u.id, "keeper");
  this->linked("link-g1", u.id, "gone");
  this->linked("link-g2", u.id, "gone");
  this->linked("link-o", u.id, "off");
  this->linked("link-late", u.id, "off");
  this->linked("link-none", u.id, "off");
  ASSERT_TRUE(this->keep("link-k", "v1.0a1b2c3d.k", 10));
  ASSERT_TRUE(this->keep("link-g1", "v1.0a1b2c3d.g1", 10));
  ASSERT_TRUE(this->keep("link-g2", "v1.0a1b2c3d.g2", 10));
  ASSERT_TRUE(this->keep("link-o", "v1.0a1b2c3d.o", 10));
  ASSERT_TRUE(this->keep("link-late", "v1.0a1b2c3d.late", 100));  // kept after the cut-off
  const std::vector<std::string> keeping = {"keeper"};
  auto sweep = [&](int limit) {
    std::int64_t forgotten = -1;
    this->write([&](Transaction& tx) {
      forgotten = tx.identities().forget_tokens_not_kept_by(keeping, 50, limit);
    });
    return forgotten;
  };

  EXPECT_EQ(sweep(2), 2);  // link-g1, link-g2: the first two in id order
  EXPECT_FALSE(this->kept("link-g1"));
  EXPECT_FALSE(this->kept("link-g2"));
  EXPECT_TRUE(this->kept("link-o"));
  EXPECT_EQ(sweep(2), 1);  // link-o
  EXPECT_EQ(sweep(2), 0);
  EXPECT_FALSE(this->kept("link-o"));
  EXPECT_TRUE(this->kept("link-k"));
  EXPECT_TRUE(this->kept("link-late"));
  this->read([&](Transaction& tx) { EXPECT_EQ(tx.identities().of_user(u.id).size(), 6u); });

  // With no provider keeping any, every one kept before the cut-off goes.
  this->write([&](Transaction& tx) {
    EXPECT_EQ(tx.identities().forget_tokens_not_kept_by({}, 50, 10), 1);
  });
  EXPECT_FALSE(this->kept("link-k"));
  EXPECT_TRUE(this->kept("link-late"));
}

}  // namespace
}  // namespace authd
