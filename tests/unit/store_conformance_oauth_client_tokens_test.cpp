// The store conformance suite for the access tokens of the
// client_credentials grant (interface.md 17.7, 17.11), run unchanged on
// SQLite and on PostgreSQL (the PostgreSQL cases skip unless
// AUTHD_TEST_POSTGRES names a server; scripts/test.sh runs them there).
#include <gtest/gtest.h>

#include <cstdint>
#include <optional>
#include <string>

#include "store/pruning.hpp"
#include "store_conformance_oauth_fixture.hpp"

namespace authd {
namespace {

template <class Backend>
class StoreConformanceClientTokens : public StoreConformanceOAuthFixture<Backend> {
 protected:
  static ClientTokenRecord client_token(const std::string& token, const OAuthClientRecord& c,
                                        Millis expires_at = 601'000, std::string resource = "") {
    return ClientTokenRecord{sha256(token),       c.id,  "reports:read",
                             std::move(resource), 1'000, expires_at};
  }

  std::optional<ClientTokenRecord> live(const std::string& token, Millis now) {
    return this->template read_value<std::optional<ClientTokenRecord>>(
        [&](Transaction& tx) { return tx.client_tokens().live(sha256(token), now); });
  }
};

void expect_same_client_token(const ClientTokenRecord& a, const ClientTokenRecord& b) {
  EXPECT_EQ(a.token_digest, b.token_digest);
  EXPECT_EQ(a.client_id, b.client_id);
  EXPECT_EQ(a.scope, b.scope);
  EXPECT_EQ(a.resource, b.resource);
  EXPECT_EQ(a.created_at, b.created_at);
  EXPECT_EQ(a.expires_at, b.expires_at);
}

using Backends = ::testing::Types<OnSqlite, OnPostgres>;
TYPED_TEST_SUITE(StoreConformanceClientTokens, Backends);

// interface.md 17.7: a live token reads back whole, its resource or none
// (the issuer); an expired one (expires_at reached) and an unknown one find
// nothing.
TYPED_TEST(StoreConformanceClientTokens, Interface_17_7_LiveClientTokenReadsBackWhole) {
  OAuthClientRecord c = this->stored_client("machine");
  ClientTokenRecord plain = this->client_token("plain", c);
  ClientTokenRecord bound = this->client_token("bound", c, 601'000, "https://api.example/v1");
  this->write([&](Transaction& tx) {
    tx.client_tokens().insert(plain);
    tx.client_tokens().insert(bound);
  });
  auto found = this->live("plain", 600'999);
  ASSERT_TRUE(found);
  expect_same_client_token(*found, plain);
  found = this->live("bound", 600'999);
  ASSERT_TRUE(found);
  expect_same_client_token(*found, bound);
  EXPECT_FALSE(this->live("plain", 601'000));
  EXPECT_FALSE(this->live("never issued", 2'000));
}

// interface.md 17.11: revoking one token removes that one (true once);
// revoking a client's removes all of its and none of another's.
TYPED_TEST(StoreConformanceClientTokens, Interface_17_11_RevokeOneAndRevokeOfClient) {
  OAuthClientRecord one = this->stored_client("one");
  OAuthClientRecord two = this->stored_client("two");
  this->write([&](Transaction& tx) {
    tx.client_tokens().insert(this->client_token("one-a", one));
    tx.client_tokens().insert(this->client_token("one-b", one));
    tx.client_tokens().insert(this->client_token("one-c", one));
    tx.client_tokens().insert(this->client_token("two-a", two));
  });
  EXPECT_TRUE(this->template write_value<bool>(
      [&](Transaction& tx) { return tx.client_tokens().revoke(sha256("one-a")); }));
  EXPECT_FALSE(this->template write_value<bool>(
      [&](Transaction& tx) { return tx.client_tokens().revoke(sha256("one-a")); }));
  EXPECT_FALSE(this->live("one-a", 2'000));
  EXPECT_TRUE(this->live("one-b", 2'000));
  EXPECT_EQ(this->template write_value<std::int64_t>(
                [&](Transaction& tx) { return tx.client_tokens().revoke_of_client(one.id); }),
            2);
  EXPECT_FALSE(this->live("one-b", 2'000));
  EXPECT_FALSE(this->live("one-c", 2'000));
  EXPECT_TRUE(this->live("two-a", 2'000));
}

// interface.md 17.7: the housekeeping removes the expired tokens, counts
// them, and keeps the live ones.
TYPED_TEST(StoreConformanceClientTokens, Interface_17_7_HousekeepingPrunesExpiredClientTokens) {
  OAuthClientRecord c = this->stored_client("machine");
  const Millis now = 700'000;
  this->write([&](Transaction& tx) {
    tx.client_tokens().insert(this->client_token("old", c, now));
    tx.client_tokens().insert(this->client_token("older", c, now - 1));
    tx.client_tokens().insert(this->client_token("live", c, now + 1));
  });
  EXPECT_EQ(this->template write_value<std::int64_t>([&](Transaction& tx) {
    return PrunePass({now, 0, 0, 0}).run(tx);
  }),
            2);
  EXPECT_TRUE(this->live("live", now));
  EXPECT_EQ(this->template write_value<std::int64_t>(
                [&](Transaction& tx) { return tx.client_tokens().prune(now + 1); }),
            1);
  EXPECT_FALSE(this->live("live", now));
}

// interface.md 17.3: deleting a client removes its client_credentials
// tokens (the foreign key would refuse the removal otherwise), and nothing
// of another client's.
TYPED_TEST(StoreConformanceClientTokens, Interface_17_3_RemovingAClientRemovesItsClientTokens) {
  OAuthClientRecord gone = this->stored_client("gone");
  OAuthClientRecord kept = this->stored_client("kept");
  this->write([&](Transaction& tx) {
    tx.client_tokens().insert(this->client_token("tok-gone", gone));
    tx.client_tokens().insert(this->client_token("tok-kept", kept));
  });
  EXPECT_TRUE(this->template write_value<bool>(
      [&](Transaction& tx) { return tx.oauth_clients().remove(gone.id); }));
  this->read([&](Transaction& tx) { EXPECT_FALSE(tx.oauth_clients().by_id(gone.id)); });
  EXPECT_FALSE(this->live("tok-gone", 2'000));
  EXPECT_TRUE(this->live("tok-kept", 2'000));
}

}  // namespace
}  // namespace authd
