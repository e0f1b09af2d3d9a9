// The store conformance suite for the OpenID provider's refresh tokens
// (interface.md 17.10), run unchanged on SQLite and on PostgreSQL (the
// PostgreSQL cases skip unless AUTHD_TEST_POSTGRES names a server;
// scripts/test.sh runs them there).
#include <gtest/gtest.h>

#include <optional>
#include <string>

#include "auth/admin/erasure.hpp"
#include "store/pruning.hpp"
#include "store_conformance_oauth_fixture.hpp"

namespace authd {
namespace {

template <class Backend>
class StoreConformanceOAuthRefresh : public StoreConformanceOAuthFixture<Backend> {
 protected:
  static RefreshTokenRecord refresh(const std::string& token, const std::string& family,
                                    const OAuthClientRecord& c, const UserRecord& u,
                                    Millis family_expires_at = 900'000) {
    RefreshTokenRecord r;
    r.token_digest = sha256(token);
    r.family_digest = sha256(family);
    r.client_id = c.id;
    r.user_id = u.id;
    r.scope = "openid offline_access";
    r.resource = "https://api.example/";
    r.session_public_id = "sid-" + family;
    r.auth_time = 500;
    r.amr = "pwd otp";
    r.created_at = 1'000;
    r.expires_at = 600'000;
    r.family_expires_at = family_expires_at;
    return r;
  }

  std::optional<RefreshTokenRecord> find(const std::string& token) {
    return this->template read_value<std::optional<RefreshTokenRecord>>(
        [&](Transaction& tx) { return tx.refresh_tokens().by_digest(sha256(token)); });
  }
  template <class Work>
  std::int64_t count(Work&& work) {
    return this->template write_value<std::int64_t>(work);
  }
};

using Backends = ::testing::Types<OnSqlite, OnPostgres>;
TYPED_TEST_SUITE(StoreConformanceOAuthRefresh, Backends);

// interface.md 17.10: a refresh token reads back whole, an empty resource
// (the issuer) as empty; an unknown one finds nothing.
TYPED_TEST(StoreConformanceOAuthRefresh, Interface_17_10_RefreshTokenReadsBackWhole) {
  UserRecord u = this->stored_user("a@example.com");
  OAuthClientRecord c = this->stored_client("app");
  RefreshTokenRecord stored = this->refresh("rt", "code", c, u);
  RefreshTokenRecord issuer = this->refresh("rt-issuer", "code", c, u);
  issuer.resource.clear();
  issuer.used_at = 7'000;
  this->write([&](Transaction& tx) {
    tx.refresh_tokens().insert(stored);
    tx.refresh_tokens().insert(issuer);
  });
  auto found = this->find("rt");
  ASSERT_TRUE(found);
  EXPECT_EQ(found->token_digest, stored.token_digest);
  EXPECT_EQ(found->family_digest, stored.family_digest);
  EXPECT_EQ(found->client_id, c.id);
  EXPECT_EQ(found->user_id, u.id);
  EXPECT_EQ(found->scope, stored.scope);
  EXPECT_EQ(found->resource, "https://api.example/");
  EXPECT_EQ(found->session_public_id, stored.session_public_id);
  EXPECT_EQ(found->auth_time, 500);
  EXPECT_EQ(found->amr, "pwd otp");
  EXPECT_EQ(found->created_at, 1'000);
  EXPECT_EQ(found->expires_at, 600'000);
  EXPECT_EQ(found->family_expires_at, 900'000);
  EXPECT_FALSE(found->used_at);
  auto used = this->find("rt-issuer");
  ASSERT_TRUE(used);
  EXPECT_EQ(used->resource, "");
  EXPECT_EQ(used->used_at, std::optional<Millis>(7'000));
  EXPECT_FALSE(this->find("never issued"));
}

// interface.md 17.10: rotation marks a token used once; the second mark
// (a reuse, or the loser of two concurrent rotations) is false and keeps
// the first time.
TYPED_TEST(StoreConformanceOAuthRefresh, Interface_17_10_MarkUsedWinsOnce) {
  UserRecord u = this->stored_user("a@example.com");
  OAuthClientRecord c = this->stored_client("app");
  this->write([&](Transaction& tx) { tx.refresh_tokens().insert(this->refresh("rt", "f", c, u)); });
  EXPECT_TRUE(this->template write_value<bool>(
      [&](Transaction& tx) { return tx.refresh_tokens().mark_used(sha256("rt"), 3'000); }));
  EXPECT_FALSE(this->template write_value<bool>(
      [&](Transaction& tx) { return tx.refresh_tokens().mark_used(sha256("rt"), 4'000); }));
  EXPECT_FALSE(this->template write_value<bool>(
      [&](Transaction& tx) { return tx.refresh_tokens().mark_used(sha256("unknown"), 4'000); }));
  EXPECT_EQ(this->find("rt")->used_at, std::optional<Millis>(3'000));
}

// interface.md 17.10: a reuse revokes the whole family, used tokens
// included, and no other family.
TYPED_TEST(StoreConformanceOAuthRefresh, Interface_17_10_oidcc_refresh_token_RevokeFamily) {
  UserRecord u = this->stored_user("a@example.com");
  OAuthClientRecord c = this->stored_client("app");
  RefreshTokenRecord used = this->refresh("rt1", "family", c, u);
  used.used_at = 2'000;
  this->write([&](Transaction& tx) {
    tx.refresh_tokens().insert(used);
    tx.refresh_tokens().insert(this->refresh("rt2", "family", c, u));
    tx.refresh_tokens().insert(this->refresh("other", "other family", c, u));
  });
  EXPECT_EQ(this->count([&](Transaction& tx) {
    return tx.refresh_tokens().revoke_family(sha256("family"));
  }),
            2);
  EXPECT_FALSE(this->find("rt1"));
  EXPECT_FALSE(this->find("rt2"));
  EXPECT_TRUE(this->find("other"));
}

// interface.md 17.5, 17.10: a withdrawn consent revokes that client's
// tokens for the user; a password change (and the like) all the user's;
// a client's deletion all the client's. Others' stay.
TYPED_TEST(StoreConformanceOAuthRefresh, Interface_17_10_RevokeOfUserClientAndBoth) {
  UserRecord a = this->stored_user("a@example.com");
  UserRecord b = this->stored_user("b@example.com");
  OAuthClientRecord one = this->stored_client("one");
  OAuthClientRecord two = this->stored_client("two");
  this->write([&](Transaction& tx) {
    tx.refresh_tokens().insert(this->refresh("a-one", "f1", one, a));
    tx.refresh_tokens().insert(this->refresh("a-two", "f2", two, a));
    tx.refresh_tokens().insert(this->refresh("b-one", "f3", one, b));
    tx.refresh_tokens().insert(this->refresh("b-two", "f4", two, b));
  });
  EXPECT_EQ(this->count([&](Transaction& tx) {
    return tx.refresh_tokens().revoke_of_user_and_client(a.id, one.id);
  }),
            1);
  EXPECT_FALSE(this->find("a-one"));
  EXPECT_TRUE(this->find("a-two"));
  EXPECT_TRUE(this->find("b-one"));
  EXPECT_EQ(this->count([&](Transaction& tx) { return tx.refresh_tokens().revoke_of_user(a.id); }),
            1);
  EXPECT_FALSE(this->find("a-two"));
  EXPECT_EQ(
      this->count([&](Transaction& tx) { return tx.refresh_tokens().revoke_of_client(one.id); }),
      1);
  EXPECT_FALSE(this->find("b-one"));
  EXPECT_TRUE(this->find("b-two"));
}

// interface.md 17.10: the housekeeping removes a family once its absolute
// lifetime has passed (an idle-expired token stays until then, so that its
// reuse is still recognized).
TYPED_TEST(StoreConformanceOAuthRefresh, Interface_17_10_HousekeepingPrunesEndedFamilies) {
  UserRecord u = this->stored_user("a@example.com");
  OAuthClientRecord c = this->stored_client("app");
  const Millis now = 900'000;
  this->write([&](Transaction& tx) {
    tx.refresh_tokens().insert(this->refresh("ended", "f1", c, u, now));
    tx.refresh_tokens().insert(this->refresh("idle", "f2", c, u, now + 1));
  });
  EXPECT_EQ(this->count([&](Transaction& tx) { return PrunePass({now, 0, 0, 0}).run(tx); }), 1);
  EXPECT_FALSE(this->find("ended"));
  EXPECT_TRUE(this->find("idle"));
}

// interface.md 10.4.13, 17.10: erasure removes the account's refresh
// tokens (the account's removal is refused while one is left); a client's
// deletion removes its own.
TYPED_TEST(StoreConformanceOAuthRefresh, Interface_10_4_13_ErasureAndClientDeletionRemoveRefresh) {
  UserRecord gone = this->stored_user("gone@example.com");
  UserRecord kept = this->stored_user("kept@example.com");
  OAuthClientRecord c = this->stored_client("app");
  OAuthClientRecord deleted = this->stored_client("deleted");
  this->write([&](Transaction& tx) {
    tx.refresh_tokens().insert(this->refresh("gone", "f1", c, gone));
    tx.refresh_tokens().insert(this->refresh("kept", "f2", c, kept));
    tx.refresh_tokens().insert(this->refresh("of-deleted", "f3", deleted, kept));
  });
  this->write([&](Transaction& tx) { erase_account(tx, gone); });
  EXPECT_TRUE(this->template write_value<bool>(
      [&](Transaction& tx) { return tx.oauth_clients().remove(deleted.id); }));
  this->read([&](Transaction& tx) { EXPECT_FALSE(tx.users().by_id(gone.id)); });
  EXPECT_FALSE(this->find("gone"));
  EXPECT_FALSE(this->find("of-deleted"));
  EXPECT_TRUE(this->find("kept"));
}

}  // namespace
}  // namespace authd
