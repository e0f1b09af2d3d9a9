// store/postgres: client authentication's reads in a batch share their
// statements (store/postgres/shared_oauth_clients.hpp, shared_throttle.hpp;
// docs/design/performance-choices.md#postgresql-client-lookups-in-one-statement):
// the client lookups go as one statement, the client addresses' throttle
// counts as another. Each unit must still get its own client and its own
// key's events, whatever the others ask: an unknown id, a text that is no
// UUID, the same client twice. Skipped unless AUTHD_TEST_POSTGRES names a
// server (scripts/with-postgres.sh; scripts/test.sh runs them there).
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
namespace shared_client_auth_test {
namespace {

using namespace std::chrono_literals;

class PostgresSharedClientAuthTest : public ::testing::Test {
 protected:
  void SetUp() override {
    AUTHD_SKIP_WITHOUT_POSTGRES();
    url_ = test::migrated_postgres_database();
    postgres::PostgresStore store(url_, 1, 5s);
    // Client i is named "client i", confidential when i is odd; key "k i"
    // has i + 1 events, at 1000, 1001, ...
    ASSERT_EQ(store.run(Store::Mode::write,
                        [&](Transaction& tx) {
                          for (int i = 0; i < 4; ++i) {
                            OAuthClientRecord c;
                            c.id = new_uuid_v4();
                            c.name = "client " + std::to_string(i);
                            c.confidential = i % 2 == 1;
                            if (c.confidential) c.secret_digest = sha256("secret " + c.name);
                            c.redirect_uris = {"https://app" + std::to_string(i) + ".example/cb"};
                            c.created_at = c.updated_at = 1'000 + i;
                            tx.oauth_clients().insert(c);
                            clients_.push_back(c.id);
                            for (int e = 0; e <= i; ++e)
                              tx.throttle().insert_event(key(i), 1'000 + e);
                          }
                        }),
              StoreStatus::ok);
  }

  static std::string key(int i) { return "k " + std::to_string(i); }

  std::string url_;
  std::vector<std::string> clients_;
};

struct Asked {
  std::string id;
  int key = 0;
  Millis after = 0;
  int most = 10;
};

struct Found {
  std::optional<OAuthClientRecord> client;
  std::vector<Millis> times;
};

// interface.md 17.3.3: a batch of client authentications' reads sends two
// statements and two Syncs (the counts, then the clients), not two a read,
// and each read gets its own client and its own key's events.
TEST_F(PostgresSharedClientAuthTest, Interface_17_3_3_TheClientReadsOfABatchShareTheirStatements) {
  postgres::Connection connection(url_, 5s, std::chrono::steady_clock::now() + 5s);
  const std::string unknown = new_uuid_v4();
  const std::vector<Asked> asked{
      {clients_[0], 0},       {clients_[1], 1},       {unknown, 2},    {"not-a-uuid', '{", 3},
      {clients_[3], 3, 1001}, {clients_[1], 2, 0, 1}, {clients_[2], 1}};
  std::vector<Found> found(asked.size());
  std::vector<std::function<void(Transaction&)>> works;
  for (std::size_t i = 0; i < asked.size(); ++i)
    works.emplace_back([&found, &asked, i](Transaction& tx) {
      const Asked& a = asked[i];
      found[i].times = tx.throttle().event_times(key(a.key), a.after, a.most);
      found[i].client = tx.oauth_clients().by_id(a.id);
    });
  const std::uint64_t before = connection.syncs_sent();
  for (const TransactionUnit& unit : test::run_as_batch(connection, works, false))
    EXPECT_EQ(unit.status, StoreStatus::ok);
  // The counts share one; the six canonical ids another; the text that is
  // no UUID goes alone.
  EXPECT_EQ(connection.syncs_sent() - before, 3u);

  const std::vector<std::vector<Millis>> times{
      {1000},       {1000, 1001}, {1000, 1001, 1002}, {1000, 1001, 1002, 1003},
      {1002, 1003}, {1002},       {1000, 1001}};
  for (std::size_t i = 0; i < asked.size(); ++i) {
    EXPECT_EQ(found[i].times, times[i]) << "read " << i;
    const auto client = std::find(clients_.begin(), clients_.end(), asked[i].id);
    if (client == clients_.end()) {
      EXPECT_FALSE(found[i].client.has_value()) << "read " << i;
      continue;
    }
    const auto n = client - clients_.begin();
    ASSERT_TRUE(found[i].client.has_value()) << "read " << i;
    EXPECT_EQ(found[i].client->id, asked[i].id) << "read " << i;
    EXPECT_EQ(found[i].client->name, "client " + std::to_string(n)) << "read " << i;
    EXPECT_EQ(found[i].client->confidential, n % 2 == 1) << "read " << i;
    EXPECT_EQ(found[i].client->redirect_uris,
              std::vector<std::string>{"https://app" + std::to_string(n) + ".example/cb"})
        << "read " << i;
    EXPECT_EQ(found[i].client->created_at, 1'000 + n) << "read " << i;
    if (n % 2 == 1)
      EXPECT_EQ(found[i].client->secret_digest, sha256("secret client " + std::to_string(n)))
          << "read " << i;
    else
      EXPECT_FALSE(found[i].client->secret_digest.has_value()) << "read " << i;
  }
}

}  // namespace
}  // namespace shared_client_auth_test
}  // namespace authd
