// The store conformance suite for the OpenID provider's access tokens,
// consents and signing keys (interface.md 17.5, 17.9, 17.12), and for the
// housekeeping of all its rows, run unchanged on SQLite and on PostgreSQL
// (the PostgreSQL cases skip unless AUTHD_TEST_POSTGRES names a server;
// scripts/test.sh runs them there).
#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

#include "auth/admin/erasure.hpp"
#include "store/pruning.hpp"
#include "store_conformance_oauth_fixture.hpp"

namespace authd {
namespace {

template <class Backend>
class StoreConformanceOAuthTokens : public StoreConformanceOAuthFixture<Backend> {
 protected:
  std::optional<AccessTokenUser> live(const std::string& token, Millis now) {
    return this->template read_value<std::optional<AccessTokenUser>>(
        [&](Transaction& tx) { return tx.access_tokens().live_with_user(sha256(token), now); });
  }
};

using Backends = ::testing::Types<OnSqlite, OnPostgres>;
TYPED_TEST_SUITE(StoreConformanceOAuthTokens, Backends);

// interface.md 17.8, 17.9: a live token reads back whole with its user; an
// expired one (expires_at reached) and an unknown one find nothing.
TYPED_TEST(StoreConformanceOAuthTokens, Interface_17_9_LiveWithUserIgnoresExpiredTokens) {
  UserRecord u = this->stored_user("a@example.com");
  OAuthClientRecord c = this->stored_client("app");
  AccessTokenRecord stored = this->token("live", "code", c, u, 601'000);
  this->write([&](Transaction& tx) { tx.access_tokens().insert(stored); });
  auto found = this->live("live", 600'999);
  ASSERT_TRUE(found);
  expect_same_token(found->token, stored);
  EXPECT_EQ(found->user.id, u.id);
  EXPECT_EQ(found->user.email, u.email);
  EXPECT_EQ(found->user.created_at, u.created_at);
  EXPECT_FALSE(this->live("live", 601'000));
  EXPECT_FALSE(this->live("never issued", 2'000));
}

// interface.md 17.9 (RFC 8707): the resource a code and its access token
// were issued for reads back; none reads back empty.
TYPED_TEST(StoreConformanceOAuthTokens, Interface_17_9_TheResourceOfCodesAndTokensReadsBack) {
  UserRecord u = this->stored_user("a@example.com");
  OAuthClientRecord c = this->stored_client("app");
  AuthorizationCodeRecord bound = this->code("bound", c, u);
  bound.resource = "https://api.example.com/v1";
  AuthorizationCodeRecord plain = this->code("plain", c, u);
  AccessTokenRecord token = this->token("bound-token", "bound", c, u);
  token.resource = bound.resource;
  this->write([&](Transaction& tx) {
    tx.authorization_codes().insert(bound);
    tx.authorization_codes().insert(plain);
    tx.access_tokens().insert(token);
    tx.access_tokens().insert(this->token("plain-token", "plain", c, u));
  });
  this->read([&](Transaction& tx) {
    EXPECT_EQ(tx.authorization_codes().by_digest(sha256("bound")).value().resource,
              "https://api.example.com/v1");
    EXPECT_EQ(tx.authorization_codes().by_digest(sha256("plain")).value().resource, "");
  });
  auto found = this->live("bound-token", 2'000);
  ASSERT_TRUE(found);
  expect_same_token(found->token, token);
  ASSERT_TRUE(this->live("plain-token", 2'000));
  EXPECT_EQ(this->live("plain-token", 2'000)->token.resource, "");
}

// interface.md 17.6: a reused code revokes the tokens issued from it, and
// only those.
TYPED_TEST(StoreConformanceOAuthTokens, Interface_17_6_oidcc_codereuse_RevokeOfGrantOnlyThatGrant) {
  UserRecord u = this->stored_user("a@example.com");
  OAuthClientRecord c = this->stored_client("app");
  this->write([&](Transaction& tx) {
    tx.access_tokens().insert(this->token("t1", "reused", c, u));
    tx.access_tokens().insert(this->token("t2", "reused", c, u));
    tx.access_tokens().insert(this->token("t3", "other", c, u));
  });
  EXPECT_EQ(this->template write_value<std::int64_t>([&](Transaction& tx) {
    return tx.access_tokens().revoke_of_grant(sha256("reused"));
  }),
            2);
  EXPECT_FALSE(this->live("t1", 2'000));
  EXPECT_FALSE(this->live("t2", 2'000));
  EXPECT_TRUE(this->live("t3", 2'000));
}

// interface.md 17.5: withdrawing a consent revokes that client's tokens for
// that user; erasure revokes all the user's; others' stay.
TYPED_TEST(StoreConformanceOAuthTokens, Interface_17_5_RevokeOfUserAndClientAndOfUser) {
  UserRecord a = this->stored_user("a@example.com");
  UserRecord b = this->stored_user("b@example.com");
  OAuthClientRecord one = this->stored_client("one");
  OAuthClientRecord two = this->stored_client("two");
  this->write([&](Transaction& tx) {
    tx.access_tokens().insert(this->token("a-one", "g1", one, a));
    tx.access_tokens().insert(this->token("a-two", "g2", two, a));
    tx.access_tokens().insert(this->token("b-one", "g3", one, b));
  });
  EXPECT_EQ(this->template write_value<std::int64_t>([&](Transaction& tx) {
    return tx.access_tokens().revoke_of_user_and_client(a.id, one.id);
  }),
            1);
  EXPECT_FALSE(this->live("a-one", 2'000));
  EXPECT_TRUE(this->live("a-two", 2'000));
  EXPECT_TRUE(this->live("b-one", 2'000));
  EXPECT_EQ(this->template write_value<std::int64_t>(
                [&](Transaction& tx) { return tx.access_tokens().revoke_of_user(a.id); }),
            1);
  EXPECT_FALSE(this->live("a-two", 2'000));
  EXPECT_TRUE(this->live("b-one", 2'000));
}

// interface.md 17.5: a widened consent replaces the scopes and updated_at
// and keeps granted_at; the listing carries the client's name, oldest
// first; a withdrawal is true once.
TYPED_TEST(StoreConformanceOAuthTokens, Interface_17_5_ConsentUpsertKeepsGrantedAt) {
  UserRecord u = this->stored_user("a@example.com");
  UserRecord other = this->stored_user("b@example.com");
  OAuthClientRecord first = this->stored_client("first");
  OAuthClientRecord second = this->stored_client("second");
  this->write([&](Transaction& tx) {
    tx.consents().upsert(ConsentRecord{u.id, second.id, {"openid"}, 5'000, 5'000});
    tx.consents().upsert(ConsentRecord{u.id, first.id, {"openid"}, 1'000, 1'000});
    tx.consents().upsert(ConsentRecord{other.id, first.id, {"openid"}, 1'000, 1'000});
  });
  this->write([&](Transaction& tx) {
    tx.consents().upsert(ConsentRecord{u.id, first.id, {"email", "openid"}, 9'000, 9'000});
  });
  auto widened = this->template read_value<std::optional<ConsentRecord>>(
      [&](Transaction& tx) { return tx.consents().get(u.id, first.id); });
  ASSERT_TRUE(widened);
  EXPECT_EQ(widened->scopes, (std::vector<std::string>{"email", "openid"}));
  EXPECT_EQ(widened->granted_at, 1'000);
  EXPECT_EQ(widened->updated_at, 9'000);
  auto listing = this->template read_value<std::vector<ConsentListing>>(
      [&](Transaction& tx) { return tx.consents().list_of_user(u.id); });
  ASSERT_EQ(listing.size(), 2u);
  EXPECT_EQ(listing[0].consent.client_id, first.id);
  EXPECT_EQ(listing[0].client_name, "first");
  EXPECT_EQ(listing[0].consent.scopes, widened->scopes);
  EXPECT_EQ(listing[1].consent.client_id, second.id);
  EXPECT_EQ(listing[1].client_name, "second");
  EXPECT_TRUE(this->template write_value<bool>(
      [&](Transaction& tx) { return tx.consents().remove(u.id, first.id); }));
  EXPECT_FALSE(this->template write_value<bool>(
      [&](Transaction& tx) { return tx.consents().remove(u.id, first.id); }));
  this->write([&](Transaction& tx) { tx.consents().delete_of_user(u.id); });
  this->read([&](Transaction& tx) {
    EXPECT_TRUE(tx.consents().list_of_user(u.id).empty());
    EXPECT_TRUE(tx.consents().get(other.id, first.id));
  });
}

// interface.md 17.12: one key per (alg, generation): a second insert of a
// taken pair is false and writes nothing; keys list by alg then generation.
TYPED_TEST(StoreConformanceOAuthTokens, Interface_17_12_ASigningKeyGenerationIsTakenOnce) {
  SigningKeyRecord rs2 = this->key("rs-2", "RS256", 2);
  SigningKeyRecord rs1 = this->key("rs-1", "RS256", 1);
  SigningKeyRecord es1 = this->key("es-1", "ES256", 1);
  this->write([&](Transaction& tx) {
    for (const auto* k : {&rs2, &rs1, &es1}) EXPECT_TRUE(tx.signing_keys().insert(*k));
  });
  SigningKeyRecord late = this->key("rs-1-late", "RS256", 1);
  EXPECT_FALSE(this->template write_value<bool>(
      [&](Transaction& tx) { return tx.signing_keys().insert(late); }));
  auto keys = this->template read_value<std::vector<SigningKeyRecord>>(
      [&](Transaction& tx) { return tx.signing_keys().list(); });
  ASSERT_EQ(keys.size(), 3u);
  expect_same_key(keys[0], es1);
  expect_same_key(keys[1], rs1);
  expect_same_key(keys[2], rs2);
}

// interface.md 17.12: a key is retired once (its first retirement kept),
// made to sign earlier, resealed, and pruned after remove_after.
TYPED_TEST(StoreConformanceOAuthTokens, Interface_17_12_RetireResealAndPruneSigningKeys) {
  SigningKeyRecord old = this->key("old", "ES256", 1);
  SigningKeyRecord next = this->key("next", "ES256", 2);
  next.signs_from = 90'000;
  this->write([&](Transaction& tx) {
    tx.signing_keys().insert(old);
    tx.signing_keys().insert(next);
  });
  this->write([&](Transaction& tx) {
    EXPECT_TRUE(tx.signing_keys().retire("old", 10'000, 20'000));
    EXPECT_FALSE(tx.signing_keys().retire("old", 11'000, 21'000));
    EXPECT_FALSE(tx.signing_keys().retire("unknown", 11'000, 21'000));
    EXPECT_TRUE(tx.signing_keys().set_signs_from("next", 10'000));
    EXPECT_TRUE(tx.signing_keys().reseal("next", "resealed"));
    EXPECT_FALSE(tx.signing_keys().reseal("unknown", "resealed"));
  });
  auto keys = this->template read_value<std::vector<SigningKeyRecord>>(
      [&](Transaction& tx) { return tx.signing_keys().list(); });
  ASSERT_EQ(keys.size(), 2u);
  EXPECT_EQ(keys[0].retired_at, std::optional<Millis>(10'000));
  EXPECT_EQ(keys[0].remove_after, std::optional<Millis>(20'000));
  EXPECT_EQ(keys[1].signs_from, 10'000);
  EXPECT_EQ(keys[1].sealed_private, "resealed");
  EXPECT_EQ(this->template write_value<std::int64_t>(
                [&](Transaction& tx) { return tx.signing_keys().prune(19'999); }),
            0);
  EXPECT_EQ(this->template write_value<std::int64_t>(
                [&](Transaction& tx) { return tx.signing_keys().prune(20'000); }),
            1);
  keys = this->template read_value<std::vector<SigningKeyRecord>>(
      [&](Transaction& tx) { return tx.signing_keys().list(); });
  ASSERT_EQ(keys.size(), 1u);
  EXPECT_EQ(keys[0].kid, "next");
}

// interface.md 17.5-17.12: the housekeeping removes expired waiting requests
// and access tokens, codes past keep_until and keys past remove_after, and
// counts them; what is still live stays.
TYPED_TEST(StoreConformanceOAuthTokens, Interface_17_9_HousekeepingPrunesTheProvidersRows) {
  UserRecord u = this->stored_user("a@example.com");
  OAuthClientRecord c = this->stored_client("app");
  const Millis now = 700'000;
  AuthorizationCodeRecord old_code = this->code("old", c, u);
  old_code.keep_until = now;
  SigningKeyRecord gone_key = this->key("gone", "RS256", 1);
  gone_key.retired_at = 1'000;
  gone_key.remove_after = now;
  this->write([&](Transaction& tx) {
    tx.authorization_requests().insert(this->request("old", c, now));
    tx.authorization_requests().insert(this->request("live", c, now + 1));
    tx.authorization_codes().insert(old_code);
    tx.authorization_codes().insert(this->code("kept", c, u, now + 1));
    tx.access_tokens().insert(this->token("old", "g", c, u, now));
    tx.access_tokens().insert(this->token("live", "g", c, u, now + 1));
    tx.signing_keys().insert(gone_key);
    tx.signing_keys().insert(this->key("current", "RS256", 2));
  });
  std::int64_t removed = this->template write_value<std::int64_t>([&](Transaction& tx) {
    return PrunePass({now, 0, 0, 0}).run(tx);
  });
  EXPECT_EQ(removed, 4);
  this->read([&](Transaction& tx) {
    EXPECT_FALSE(tx.authorization_requests().by_id(sha256("old")));
    EXPECT_TRUE(tx.authorization_requests().by_id(sha256("live")));
    EXPECT_FALSE(tx.authorization_codes().by_digest(sha256("old")));
    EXPECT_TRUE(tx.authorization_codes().by_digest(sha256("kept")));
    EXPECT_TRUE(tx.access_tokens().live_with_user(sha256("live"), now));
    EXPECT_EQ(tx.signing_keys().list().size(), 1u);
  });
}

// interface.md 10.4.13 with 17.5-17.9: erasing an account removes its
// consents, codes and access tokens (the account's removal is refused while
// one is left), and nothing of another account's.
TYPED_TEST(StoreConformanceOAuthTokens, Interface_10_4_13_ErasureRemovesConsentsCodesAndTokens) {
  UserRecord gone = this->stored_user("gone@example.com");
  UserRecord kept = this->stored_user("kept@example.com");
  OAuthClientRecord c = this->stored_client("app");
  this->write([&](Transaction& tx) {
    for (const UserRecord* u : {&gone, &kept}) {
      tx.consents().upsert(ConsentRecord{u->id, c.id, {"openid"}, 1'000, 1'000});
      tx.authorization_codes().insert(this->code("code-" + u->email, c, *u));
      tx.access_tokens().insert(this->token("tok-" + u->email, "code-" + u->email, c, *u));
    }
  });
  this->write([&](Transaction& tx) { erase_account(tx, gone); });
  this->read([&](Transaction& tx) {
    EXPECT_FALSE(tx.users().by_id(gone.id));
    EXPECT_TRUE(tx.consents().list_of_user(gone.id).empty());
    EXPECT_FALSE(tx.authorization_codes().by_digest(sha256("code-gone@example.com")));
    EXPECT_FALSE(tx.access_tokens().live_with_user(sha256("tok-gone@example.com"), 2'000));
    EXPECT_TRUE(tx.consents().get(kept.id, c.id));
    EXPECT_TRUE(tx.authorization_codes().by_digest(sha256("code-kept@example.com")));
    EXPECT_TRUE(tx.access_tokens().live_with_user(sha256("tok-kept@example.com"), 2'000));
  });
}

}  // namespace
}  // namespace authd
