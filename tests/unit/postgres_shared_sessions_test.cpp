// store/postgres: the session lookups of a read batch share one statement,
// and so do the session deletes of a batch of logouts
// (store/postgres/shared_sessions.hpp,
// docs/design/performance-choices.md#postgresql-token-checks-in-one-statement).
// Each unit must still get its own answer, whatever the other digests of the
// batch name: unknown, expired, a disabled account, the same session twice.
// Skipped unless AUTHD_TEST_POSTGRES names a server (scripts/with-postgres.sh;
// scripts/test.sh runs them there).
#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "auth/sessions/session.hpp"
#include "crypto/random.hpp"
#include "postgres_batch.hpp"
#include "postgres_test_database.hpp"
#include "store/postgres/connection.hpp"
#include "store/postgres/postgres_store.hpp"
#include "store/postgres/read_pipeline.hpp"
#include "store/postgres/transaction.hpp"

namespace authd {
namespace {

using namespace std::chrono_literals;

constexpr Millis kNow = 5'000'000;

class PostgresSharedSessionsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    AUTHD_SKIP_WITHOUT_POSTGRES();
    url_ = test::migrated_postgres_database();
    postgres::PostgresStore store(url_, 1, 5s);
    // User i has the session "token i"; user 4 is disabled; "token 5"
    // expired before kNow; "token 6" was never issued.
    ASSERT_EQ(store.run(Store::Mode::write,
                        [&](Transaction& tx) {
                          for (int i = 0; i < 6; ++i) {
                            UserRecord u;
                            u.id = new_uuid_v7(1'000 + i);
                            u.email = "user" + std::to_string(i) + "@example.com";
                            u.created_at = u.updated_at = 1'000;
                            u.disabled = i == 4;
                            tx.users().insert(u);
                            const Millis expires = i == 5 ? kNow - 1 : kNow + 60'000;
                            tx.sessions().insert({token(i), u.id, 1'000, expires});
                            users_.push_back(u);
                          }
                        }),
              StoreStatus::ok);
  }

  static Sha256Digest token(int i) { return sha256("token " + std::to_string(i)); }

  // Runs `works` as one read batch on `connection`, as
  // PostgresStore::run_reads_together does, or, `one_transaction`, as one
  // batch of logouts inside a transaction the caller began
  // (PostgresStore::run_together); the Syncs it sent.
  static std::uint64_t run_batch(postgres::Connection& connection,
                                 std::vector<std::function<void(Transaction&)>>& works,
                                 bool one_transaction = false) {
    const std::uint64_t before = connection.syncs_sent();
    for (const TransactionUnit& unit : test::run_as_batch(connection, works, one_transaction))
      EXPECT_EQ(unit.status, StoreStatus::ok);
    return connection.syncs_sent() - before;
  }

  // What GET /me finds for each token, in the order asked.
  void expect_found(const std::vector<int>& tokens,
                    const std::vector<std::optional<UserRecord>>& found) {
    ASSERT_EQ(tokens.size(), found.size());
    for (std::size_t i = 0; i < tokens.size(); ++i) {
      const int t = tokens[i];
      if (t <= 3) {
        ASSERT_TRUE(found[i].has_value()) << "read " << i << ", token " << t;
        EXPECT_EQ(found[i]->id, users_[static_cast<std::size_t>(t)].id) << "read " << i;
        EXPECT_EQ(found[i]->email, users_[static_cast<std::size_t>(t)].email) << "read " << i;
      } else {
        EXPECT_FALSE(found[i].has_value()) << "read " << i << ", token " << t;
      }
    }
  }

  // The tokens of the fixture whose sessions are still stored.
  static std::vector<std::string> sessions_left(postgres::Connection& connection) {
    std::vector<std::string> left;
    for (int i = 0; i < 6; ++i) {
      postgres::Params params;
      params.digest(token(i));
      if (connection.run("SELECT 1 FROM sessions WHERE token_digest = $1", params).rows() == 1)
        left.push_back("token " + std::to_string(i));
    }
    return left;
  }

  std::string url_;
  std::vector<UserRecord> users_;
};

// interface.md 4 GET /me: a batch of token checks is one statement and one
// Sync, and each read still finds only its own session's user.
TEST_F(PostgresSharedSessionsTest, Interface_4_Me_TheTokenChecksOfABatchShareOneStatement) {
  postgres::Connection connection(url_, 5s, std::chrono::steady_clock::now() + 5s);
  const std::vector<int> tokens{0, 1, 6, 2, 4, 3, 0, 5};  // 0 twice
  std::vector<std::optional<UserRecord>> found(tokens.size());
  std::vector<std::function<void(Transaction&)>> works;
  for (std::size_t i = 0; i < tokens.size(); ++i)
    works.emplace_back([&found, &tokens, i](Transaction& tx) {
      found[i] = live_session_user(tx, token(tokens[i]), kNow);
    });
  EXPECT_EQ(run_batch(connection, works), 1u);
  expect_found(tokens, found);
}

// A read that sends a statement of its own first comes to its lookup once
// that answer is read: it gets its own lookup, after the shared one, and
// its own rows.
TEST_F(PostgresSharedSessionsTest, Interface_4_Me_ALookupAfterAnotherStatementGetsItsOwnRows) {
  postgres::Connection connection(url_, 5s, std::chrono::steady_clock::now() + 5s);
  const std::vector<int> tokens{3, 0, 6, 1, 2, 4};
  std::vector<std::optional<UserRecord>> found(tokens.size());
  std::vector<std::optional<UserRecord>> by_id(tokens.size());
  std::vector<std::function<void(Transaction&)>> works;
  for (std::size_t i = 0; i < tokens.size(); ++i)
    works.emplace_back([&, i](Transaction& tx) {
      if (i % 2 == 0) by_id[i] = tx.users().by_id(users_[i].id);
      found[i] = live_session_user(tx, token(tokens[i]), kNow);
    });
  // Three reads by id, one shared lookup, then a lookup for each read by id.
  EXPECT_EQ(run_batch(connection, works), 7u);
  expect_found(tokens, found);
  for (std::size_t i = 0; i < tokens.size(); i += 2) {
    ASSERT_TRUE(by_id[i].has_value()) << i;
    EXPECT_EQ(by_id[i]->id, users_[i].id);
  }
}

// Through the store, as GET /me runs: the batch's answers are the same as
// those of reads run one at a time.
TEST_F(PostgresSharedSessionsTest, Interface_4_Me_ABatchAnswersAsTheReadsAloneWould) {
  postgres::PostgresStore store(url_, 1, 5s);
  const std::vector<int> tokens{5, 4, 3, 2, 1, 0, 6, 3};
  std::vector<std::optional<UserRecord>> together(tokens.size());
  std::vector<std::function<void(Transaction&)>> works;
  for (std::size_t i = 0; i < tokens.size(); ++i)
    works.emplace_back(
        [&, i](Transaction& tx) { together[i] = live_session_user(tx, token(tokens[i]), kNow); });
  std::vector<TransactionUnit> units(works.size());
  for (std::size_t i = 0; i < units.size(); ++i) units[i].work = &works[i];
  store.run_reads_together(units);
  for (const TransactionUnit& unit : units) EXPECT_EQ(unit.status, StoreStatus::ok);
  expect_found(tokens, together);

  for (std::size_t i = 0; i < tokens.size(); ++i) {
    std::optional<UserRecord> alone;
    ASSERT_EQ(
        store.run(Store::Mode::read,
                  [&](Transaction& tx) { alone = live_session_user(tx, token(tokens[i]), kNow); }),
        StoreStatus::ok);
    EXPECT_EQ(alone.has_value(), together[i].has_value()) << i;
    if (alone && together[i]) {
      EXPECT_EQ(alone->id, together[i]->id) << i;
    }
  }
}

// interface.md 8.3, 4 POST /logout: a batch of logouts ends its sessions in
// one statement. Each logout gets its own account or nothing, judged at its
// own time; of two with one token, the first that finds it live ends it and
// the other finds it gone; an expired session and a disabled account's are
// left as they are.
TEST_F(PostgresSharedSessionsTest, Interface_8_3_TheLogoutsOfABatchEndTheirSessionsInOneStatement) {
  postgres::Connection connection(url_, 5s, std::chrono::steady_clock::now() + 5s);
  // Token 5's session expired at kNow - 1: live for a logout at kNow - 10.
  // Token 3's expires at kNow + 60 s: expired for a logout two minutes on,
  // as token 2's is for its first logout, but not for its second.
  const std::vector<int> tokens{2, 6, 0, 5, 4, 2, 1, 3, 0};  // 2 and 0 twice
  const Millis later = kNow + 120'000;
  const std::vector<Millis> at{later, kNow, kNow, kNow - 10, kNow, kNow, kNow, later, kNow};
  std::vector<std::optional<UserRecord>> ended(tokens.size());
  std::vector<std::function<void(Transaction&)>> works;
  for (std::size_t i = 0; i < tokens.size(); ++i)
    works.emplace_back([&ended, &tokens, &at, i](Transaction& tx) {
      ended[i] = tx.sessions().revoke_live(token(tokens[i]), at[i]);
    });
  connection.execute("BEGIN READ WRITE");
  EXPECT_EQ(run_batch(connection, works, /*one_transaction=*/true), 1u);
  connection.execute("COMMIT");

  const std::vector<int> expected_users{-1, -1, 0, 5, -1, 2, 1, -1, -1};
  for (std::size_t i = 0; i < tokens.size(); ++i) {
    if (expected_users[i] < 0) {
      EXPECT_FALSE(ended[i].has_value()) << "logout " << i;
    } else {
      ASSERT_TRUE(ended[i].has_value()) << "logout " << i;
      EXPECT_EQ(ended[i]->id, users_[static_cast<std::size_t>(expected_users[i])].id);
    }
  }
  // Left: the disabled account's, and token 3's, expired for its logout.
  EXPECT_EQ(sessions_left(connection), (std::vector<std::string>{"token 3", "token 4"}));
}

// A unit refused for running in a catch handler is refused before it joins
// the batch's DELETE: its session is not ended on its behalf, though the
// unit goes on and the batch commits.
TEST_F(PostgresSharedSessionsTest, Interface_8_3_ALogoutRefusedInACatchHandlerEndsNoSession) {
  postgres::Connection connection(url_, 5s, std::chrono::steady_clock::now() + 5s);
  bool refused = false;
  std::optional<UserRecord> ended;
  std::vector<std::function<void(Transaction&)>> works{
      [&refused](Transaction& tx) {
        try {
          throw std::runtime_error("handled");
        } catch (const std::runtime_error&) {
          try {
            tx.sessions().revoke_live(token(0), kNow);
          } catch (const StoreError&) {
            refused = true;
          }
        }
      },
      [&ended](Transaction& tx) { ended = tx.sessions().revoke_live(token(1), kNow); }};
  connection.execute("BEGIN READ WRITE");
  run_batch(connection, works, /*one_transaction=*/true);
  connection.execute("COMMIT");
  EXPECT_TRUE(refused);
  ASSERT_TRUE(ended.has_value());
  EXPECT_EQ(ended->id, users_[1].id);
  EXPECT_EQ(sessions_left(connection),
            (std::vector<std::string>{"token 0", "token 2", "token 3", "token 4", "token 5"}));
}

// interface.md 8.2: a connection that breaks under a batch's shared token
// check fails every read that shared it with 503, and the next batch
// reconnects and answers.
TEST_F(PostgresSharedSessionsTest,
       Interface_8_2_ASharedTokenCheckOnABrokenConnectionFailsItsReads) {
  postgres::PostgresStore store(url_, 1, 5s);
  std::vector<std::optional<UserRecord>> found(4);
  auto batch = [&](bool end_first) {
    std::vector<std::function<void(Transaction&)>> works;
    for (std::size_t i = 0; i < found.size(); ++i)
      works.emplace_back([this, &found, end_first, i](Transaction& tx) {
        if (end_first && i == 0) test::end_authd_sessions(url_);
        found[i] = live_session_user(tx, token(static_cast<int>(i)), kNow);
      });
    std::vector<TransactionUnit> units(works.size());
    for (std::size_t i = 0; i < units.size(); ++i) units[i].work = &works[i];
    store.run_reads_together(units);
    std::vector<StoreStatus> statuses;
    for (const TransactionUnit& unit : units) statuses.push_back(unit.status);
    return statuses;
  };
  ASSERT_EQ(batch(false), std::vector<StoreStatus>(4, StoreStatus::ok));  // connected
  EXPECT_EQ(batch(true), std::vector<StoreStatus>(4, StoreStatus::unavailable));
  found.assign(4, std::nullopt);
  EXPECT_EQ(batch(false), std::vector<StoreStatus>(4, StoreStatus::ok));
  expect_found({0, 1, 2, 3}, found);
}

}  // namespace
}  // namespace authd
