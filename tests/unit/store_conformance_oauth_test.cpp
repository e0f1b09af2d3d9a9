// The store conformance suite for the OpenID provider's clients, waiting
// requests and codes (interface.md 17.3, 17.5, 17.6), run unchanged on
// SQLite and on PostgreSQL (the PostgreSQL cases skip unless
// AUTHD_TEST_POSTGRES names a server; scripts/test.sh runs them there).
// Access tokens, consents and signing keys:
// store_conformance_oauth_tokens_test.cpp.
#include <gtest/gtest.h>

#include <atomic>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "store_conformance_oauth_fixture.hpp"

namespace authd {
namespace {

template <class Backend>
class StoreConformanceOAuth : public StoreConformanceOAuthFixture<Backend> {};

using Backends = ::testing::Types<OnSqlite, OnPostgres>;
TYPED_TEST_SUITE(StoreConformanceOAuth, Backends);

// interface.md 17.3: a client reads back whole, its lists in their order and
// its digests byte for byte; a public client's missing secret stays missing.
TYPED_TEST(StoreConformanceOAuth, Interface_17_3_AClientReadsBackWhole) {
  OAuthClientRecord stored = this->client("app");
  stored.previous_secret_digest = sha256("older secret");
  stored.previous_secret_until = 90'000;
  stored.first_party = true;
  stored.access_token_format = "jwt";
  stored.id_token_alg = "ES256";
  stored.introspection = true;
  OAuthClientRecord pub = this->client("native", 2'000);
  pub.confidential = false;
  pub.secret_digest.reset();
  pub.redirect_uris = {"com.example.app:/cb"};
  pub.post_logout_redirect_uris.clear();
  this->write([&](Transaction& tx) {
    tx.oauth_clients().insert(stored);
    tx.oauth_clients().insert(pub);
  });
  auto found = this->template read_value<std::optional<OAuthClientRecord>>(
      [&](Transaction& tx) { return tx.oauth_clients().by_id(stored.id); });
  ASSERT_TRUE(found);
  expect_same_client(*found, stored);
  auto found_pub = this->template read_value<std::optional<OAuthClientRecord>>(
      [&](Transaction& tx) { return tx.oauth_clients().by_id(pub.id); });
  ASSERT_TRUE(found_pub);
  expect_same_client(*found_pub, pub);
  EXPECT_FALSE((this->template read_value<std::optional<OAuthClientRecord>>(
      [&](Transaction& tx) { return tx.oauth_clients().by_id(new_uuid_v4()); })));
}

// interface.md 17.3: the list is oldest first; an update writes every
// member but id and created_at, and is false for an unknown client.
TYPED_TEST(StoreConformanceOAuth, Interface_17_3_ListIsOldestFirstAndUpdateKeepsCreatedAt) {
  OAuthClientRecord later = this->stored_client("later", 5'000);
  OAuthClientRecord first = this->stored_client("first", 1'000);
  OAuthClientRecord changed = first;
  changed.name = "renamed";
  changed.created_at = 77;  // not written
  changed.secret_digest = sha256("rotated");
  changed.previous_secret_digest = first.secret_digest;
  changed.previous_secret_until = 86'401'000;
  changed.redirect_uris = {"https://renamed.example/cb"};
  changed.scopes = {"openid"};
  changed.updated_at = 9'000;
  EXPECT_TRUE(this->template write_value<bool>(
      [&](Transaction& tx) { return tx.oauth_clients().update(changed); }));
  OAuthClientRecord unknown = this->client("unknown");
  EXPECT_FALSE(this->template write_value<bool>(
      [&](Transaction& tx) { return tx.oauth_clients().update(unknown); }));
  auto all = this->template read_value<std::vector<OAuthClientRecord>>(
      [&](Transaction& tx) { return tx.oauth_clients().list(); });
  ASSERT_EQ(all.size(), 2u);
  changed.created_at = first.created_at;
  expect_same_client(all[0], changed);
  expect_same_client(all[1], later);
}

// interface.md 17.3: deleting a client removes its waiting requests, codes,
// access tokens and consents, and nothing of another client's.
TYPED_TEST(StoreConformanceOAuth, Interface_17_3_RemovingAClientRemovesWhatWasIssuedToIt) {
  UserRecord u = this->stored_user("a@example.com");
  OAuthClientRecord gone = this->stored_client("gone");
  OAuthClientRecord kept = this->stored_client("kept");
  this->write([&](Transaction& tx) {
    for (const OAuthClientRecord* c : {&gone, &kept}) {
      tx.authorization_requests().insert(this->request("req-" + c->name, *c));
      tx.authorization_codes().insert(this->code("code-" + c->name, *c, u));
      tx.access_tokens().insert(this->token("tok-" + c->name, "code-" + c->name, *c, u));
      tx.consents().upsert(ConsentRecord{u.id, c->id, {"openid"}, 1'000, 1'000});
    }
  });
  EXPECT_TRUE(this->template write_value<bool>(
      [&](Transaction& tx) { return tx.oauth_clients().remove(gone.id); }));
  EXPECT_FALSE(this->template write_value<bool>(
      [&](Transaction& tx) { return tx.oauth_clients().remove(gone.id); }));
  this->read([&](Transaction& tx) {
    EXPECT_FALSE(tx.oauth_clients().by_id(gone.id));
    EXPECT_FALSE(tx.authorization_requests().by_id(sha256("req-gone")));
    EXPECT_FALSE(tx.authorization_codes().by_digest(sha256("code-gone")));
    EXPECT_FALSE(tx.access_tokens().live_with_user(sha256("tok-gone"), 2'000));
    EXPECT_FALSE(tx.consents().get(u.id, gone.id));
    EXPECT_TRUE(tx.oauth_clients().by_id(kept.id));
    EXPECT_TRUE(tx.authorization_requests().by_id(sha256("req-kept")));
    EXPECT_TRUE(tx.authorization_codes().by_digest(sha256("code-kept")));
    EXPECT_TRUE(tx.access_tokens().live_with_user(sha256("tok-kept"), 2'000));
    EXPECT_TRUE(tx.consents().get(u.id, kept.id));
  });
}

// interface.md 17.5: a waiting request reads back by its id's digest, is
// removed once (false the second time), and pruned once expired.
TYPED_TEST(StoreConformanceOAuth, Interface_17_5_AWaitingRequestIsRemovedOnceAndPrunedWhenExpired) {
  OAuthClientRecord c = this->stored_client("app");
  AuthorizationRequestRecord answered = this->request("answered", c);
  AuthorizationRequestRecord expiring = this->request("expiring", c, 5'000);
  AuthorizationRequestRecord live = this->request("live", c, 600'000);
  this->write([&](Transaction& tx) {
    for (const auto* r : {&answered, &expiring, &live}) tx.authorization_requests().insert(*r);
  });
  auto found = this->template read_value<std::optional<AuthorizationRequestRecord>>(
      [&](Transaction& tx) { return tx.authorization_requests().by_id(sha256("answered")); });
  ASSERT_TRUE(found);
  EXPECT_EQ(found->id_digest, answered.id_digest);
  EXPECT_EQ(found->client_id, c.id);
  EXPECT_EQ(found->parameters, answered.parameters);
  EXPECT_EQ(found->created_at, answered.created_at);
  EXPECT_EQ(found->expires_at, answered.expires_at);
  EXPECT_TRUE(this->template write_value<bool>(
      [&](Transaction& tx) { return tx.authorization_requests().remove(sha256("answered")); }));
  EXPECT_FALSE(this->template write_value<bool>(
      [&](Transaction& tx) { return tx.authorization_requests().remove(sha256("answered")); }));
  EXPECT_EQ(this->template write_value<std::int64_t>(
                [&](Transaction& tx) { return tx.authorization_requests().prune(5'000); }),
            1);
  this->read([&](Transaction& tx) {
    EXPECT_FALSE(tx.authorization_requests().by_id(sha256("expiring")));
    EXPECT_TRUE(tx.authorization_requests().by_id(sha256("live")));
  });
}

// interface.md 17.6: a code reads back whole; it is marked used once: the
// second mark_used is false and keeps the first's time.
TYPED_TEST(StoreConformanceOAuth, Interface_17_6_oidcc_codereuse_ACodeIsMarkedUsedOnce) {
  UserRecord u = this->stored_user("a@example.com");
  OAuthClientRecord c = this->stored_client("app");
  AuthorizationCodeRecord stored = this->code("abc", c, u);
  this->write([&](Transaction& tx) { tx.authorization_codes().insert(stored); });
  auto fresh = this->template read_value<std::optional<AuthorizationCodeRecord>>(
      [&](Transaction& tx) { return tx.authorization_codes().by_digest(sha256("abc")); });
  ASSERT_TRUE(fresh);
  expect_same_code(*fresh, stored);
  EXPECT_TRUE(this->template write_value<bool>(
      [&](Transaction& tx) { return tx.authorization_codes().mark_used(sha256("abc"), 3'000); }));
  EXPECT_FALSE(this->template write_value<bool>(
      [&](Transaction& tx) { return tx.authorization_codes().mark_used(sha256("abc"), 4'000); }));
  EXPECT_FALSE(this->template write_value<bool>([&](Transaction& tx) {
    return tx.authorization_codes().mark_used(sha256("never issued"), 4'000);
  }));
  auto used = this->template read_value<std::optional<AuthorizationCodeRecord>>(
      [&](Transaction& tx) { return tx.authorization_codes().by_digest(sha256("abc")); });
  ASSERT_TRUE(used);
  EXPECT_EQ(used->used_at, std::optional<Millis>(3'000));
}

// interface.md 17.6: of concurrent exchanges of one code (each reads the
// code, then marks it, in a write transaction of its own), exactly one
// marks it.
TYPED_TEST(StoreConformanceOAuth, Interface_17_6_oidcc_codereuse_ConcurrentExchangesMarkOnce) {
  UserRecord u = this->stored_user("a@example.com");
  OAuthClientRecord c = this->stored_client("app");
  this->write([&](Transaction& tx) { tx.authorization_codes().insert(this->code("abc", c, u)); });
  std::atomic<int> marked{0};
  std::atomic<int> saw_unused{0};
  std::atomic<int> failed{0};
  std::vector<std::thread> exchanges;
  for (int i = 0; i < 4; ++i) {
    exchanges.emplace_back([&, i] {
      StoreStatus status = this->store_->run(Store::Mode::write, [&](Transaction& tx) {
        auto found = tx.authorization_codes().by_digest(sha256("abc"));
        if (found && !found->used_at) saw_unused.fetch_add(1);
        if (tx.authorization_codes().mark_used(sha256("abc"), 2'000 + i)) marked.fetch_add(1);
      });
      if (status != StoreStatus::ok) failed.fetch_add(1);
    });
  }
  for (std::thread& t : exchanges) t.join();
  EXPECT_EQ(failed.load(), 0);
  EXPECT_EQ(marked.load(), 1);
  // PostgreSQL: FOR UPDATE makes the later exchanges read the marked row.
  EXPECT_EQ(saw_unused.load(), 1);
}

// interface.md 17.6: codes are pruned only after keep_until (a used code is
// kept past its expiry to recognize a reuse), and erased with their user.
TYPED_TEST(StoreConformanceOAuth, Interface_17_6_CodesArePrunedAfterKeepUntilAndErasedWithUser) {
  UserRecord a = this->stored_user("a@example.com");
  UserRecord b = this->stored_user("b@example.com");
  OAuthClientRecord c = this->stored_client("app");
  AuthorizationCodeRecord old = this->code("old", c, a, 61'000);
  old.keep_until = 100'000;
  AuthorizationCodeRecord expired_kept = this->code("expired-kept", c, a, 61'000);
  expired_kept.keep_until = 700'000;
  this->write([&](Transaction& tx) {
    tx.authorization_codes().insert(old);
    tx.authorization_codes().insert(expired_kept);
    tx.authorization_codes().insert(this->code("of-b", c, b));
  });
  EXPECT_EQ(this->template write_value<std::int64_t>(
                [&](Transaction& tx) { return tx.authorization_codes().prune(100'000); }),
            1);
  this->read([&](Transaction& tx) {
    EXPECT_FALSE(tx.authorization_codes().by_digest(sha256("old")));
    EXPECT_TRUE(tx.authorization_codes().by_digest(sha256("expired-kept")));
  });
  this->write([&](Transaction& tx) { tx.authorization_codes().delete_of_user(a.id); });
  this->read([&](Transaction& tx) {
    EXPECT_FALSE(tx.authorization_codes().by_digest(sha256("expired-kept")));
    EXPECT_TRUE(tx.authorization_codes().by_digest(sha256("of-b")));
  });
}

// interface.md 17.5.5: a withdrawn consent takes the client's codes for the
// user, and nobody else's.
TYPED_TEST(StoreConformanceOAuth, Interface_17_5_5_AWithdrawalDeletesTheCodesOfThatUserAndClient) {
  UserRecord a = this->stored_user("a@example.com");
  UserRecord b = this->stored_user("b@example.com");
  OAuthClientRecord app = this->stored_client("app");
  OAuthClientRecord other = this->stored_client("other");
  this->write([&](Transaction& tx) {
    tx.authorization_codes().insert(this->code("a-app", app, a));
    tx.authorization_codes().insert(this->code("a-other", other, a));
    tx.authorization_codes().insert(this->code("b-app", app, b));
  });
  this->write(
      [&](Transaction& tx) { tx.authorization_codes().delete_of_user_and_client(a.id, app.id); });
  this->read([&](Transaction& tx) {
    EXPECT_FALSE(tx.authorization_codes().by_digest(sha256("a-app")));
    EXPECT_TRUE(tx.authorization_codes().by_digest(sha256("a-other")));
    EXPECT_TRUE(tx.authorization_codes().by_digest(sha256("b-app")));
  });
}

}  // namespace
}  // namespace authd
