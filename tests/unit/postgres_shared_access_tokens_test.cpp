// store/postgres: the access-token lookups of a read batch share one
// statement (store/postgres/shared_access_tokens.hpp,
// docs/design/performance-choices.md#postgresql-token-checks-in-one-statement).
// Each unit must still get its own token and user, whatever the other
// digests of the batch name: unknown, expired, a disabled account's, the
// same token twice. Skipped unless AUTHD_TEST_POSTGRES names a server
// (scripts/with-postgres.sh; scripts/test.sh runs them there).
#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "crypto/random.hpp"
#include "postgres_batch.hpp"
#include "postgres_test_database.hpp"
#include "store/postgres/connection.hpp"
#include "store/postgres/postgres_store.hpp"
#include "store/postgres/transaction.hpp"

namespace authd {
namespace {

using namespace std::chrono_literals;

constexpr Millis kAskedAt = 5'000'000;

class PostgresSharedAccessTokensTest : public ::testing::Test {
 protected:
  void SetUp() override {
    AUTHD_SKIP_WITHOUT_POSTGRES();
    url_ = test::migrated_postgres_database();
    postgres::PostgresStore store(url_, 1, 5s);
    // User i has the access token "at i", of client i with scope
    // "scope i"; user 4 is disabled; "at 5" expired before kAskedAt; "at 6" was
    // never issued.
    ASSERT_EQ(store.run(Store::Mode::write,
                        [&](Transaction& tx) {
                          for (int i = 0; i < 6; ++i) {
                            UserRecord u;
                            u.id = new_uuid_v7(1'000 + i);
                            u.email = "user" + std::to_string(i) + "@example.com";
                            u.created_at = u.updated_at = 1'000;
                            u.disabled = i == 4;
                            tx.users().insert(u);
                            OAuthClientRecord c;
                            c.id = new_uuid_v4();
                            c.name = "client " + std::to_string(i);
                            c.redirect_uris = {"https://app.example/cb"};
                            c.created_at = c.updated_at = 1'000;
                            tx.oauth_clients().insert(c);
                            clients_.push_back(c.id);
                            AccessTokenRecord t;
                            t.token_digest = token(i);
                            t.client_id = c.id;
                            t.user_id = u.id;
                            t.scope = "scope " + std::to_string(i);
                            t.grant_digest = sha256("grant " + std::to_string(i));
                            t.created_at = 1'000;
                            t.expires_at = i == 5 ? kAskedAt - 1 : kAskedAt + 60'000;
                            tx.access_tokens().insert(t);
                            users_.push_back(u);
                          }
                        }),
              StoreStatus::ok);
  }

  static Sha256Digest token(int i) { return sha256("at " + std::to_string(i)); }

  std::string url_;
  std::vector<UserRecord> users_;
  std::vector<std::string> clients_;
};

// interface.md 17.8 userinfo: a batch of access-token lookups is one
// statement and one Sync, and each read finds only its own token and its
// user (a disabled one too: userinfo refuses it after the lookup).
TEST_F(PostgresSharedAccessTokensTest, Interface_17_8_TheTokenLookupsOfABatchShareOneStatement) {
  postgres::Connection connection(url_, 5s, std::chrono::steady_clock::now() + 5s);
  const std::vector<int> tokens{0, 1, 6, 2, 4, 3, 0, 5};  // 0 twice
  std::vector<std::optional<AccessTokenUser>> found(tokens.size());
  std::vector<std::function<void(Transaction&)>> works;
  for (std::size_t i = 0; i < tokens.size(); ++i)
    works.emplace_back([&found, &tokens, i](Transaction& tx) {
      found[i] = tx.access_tokens().live_with_user(token(tokens[i]), kAskedAt);
    });
  const std::uint64_t before = connection.syncs_sent();
  for (const TransactionUnit& unit : test::run_as_batch(connection, works, false))
    EXPECT_EQ(unit.status, StoreStatus::ok);
  EXPECT_EQ(connection.syncs_sent() - before, 1u);
  for (std::size_t i = 0; i < tokens.size(); ++i) {
    const int t = tokens[i];
    if (t > 4) {
      EXPECT_FALSE(found[i].has_value()) << "read " << i << ", token " << t;
      continue;
    }
    ASSERT_TRUE(found[i].has_value()) << "read " << i << ", token " << t;
    const UserRecord& user = users_[static_cast<std::size_t>(t)];
    EXPECT_EQ(found[i]->user.id, user.id) << "read " << i;
    EXPECT_EQ(found[i]->user.email, user.email) << "read " << i;
    EXPECT_EQ(found[i]->user.disabled, t == 4) << "read " << i;
    EXPECT_EQ(found[i]->token.token_digest, token(t)) << "read " << i;
    EXPECT_EQ(found[i]->token.user_id, user.id) << "read " << i;
    EXPECT_EQ(found[i]->token.client_id, clients_[static_cast<std::size_t>(t)]) << "read " << i;
    EXPECT_EQ(found[i]->token.scope, "scope " + std::to_string(t)) << "read " << i;
    EXPECT_EQ(found[i]->token.grant_digest, sha256("grant " + std::to_string(t))) << "read " << i;
    EXPECT_EQ(found[i]->token.created_at, 1'000) << "read " << i;
    EXPECT_EQ(found[i]->token.expires_at, kAskedAt + 60'000) << "read " << i;
  }
}

// Each unit's own time decides its token's expiry: of two lookups of one
// token in a batch, the one asked after the expiry finds nothing.
TEST_F(PostgresSharedAccessTokensTest, Interface_17_9_EachLookupIsJudgedAtItsOwnTime) {
  postgres::Connection connection(url_, 5s, std::chrono::steady_clock::now() + 5s);
  const std::vector<Millis> times{kAskedAt, kAskedAt + 60'000, kAskedAt + 59'999,
                                  kAskedAt + 60'001};
  std::vector<std::optional<AccessTokenUser>> found(times.size());
  std::vector<std::function<void(Transaction&)>> works;
  for (std::size_t i = 0; i < times.size(); ++i)
    works.emplace_back([&found, &times, i](Transaction& tx) {
      found[i] = tx.access_tokens().live_with_user(token(1), times[i]);
    });
  for (const TransactionUnit& unit : test::run_as_batch(connection, works, false))
    EXPECT_EQ(unit.status, StoreStatus::ok);
  EXPECT_TRUE(found[0].has_value());
  EXPECT_FALSE(found[1].has_value());
  EXPECT_TRUE(found[2].has_value());
  EXPECT_FALSE(found[3].has_value());
}

}  // namespace
}  // namespace authd
