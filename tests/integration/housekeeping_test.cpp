// Housekeeping beside the requests (interface.md 8.2): the pruner removes
// expired rows every --prune-interval without waiting for a row that
// another transaction holds.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "contract_support.hpp"
#include "harness.hpp"

namespace authd::test::housekeeping {
namespace {

// The session rows of `token`: "1" while it is stored, "0" once pruned.
std::string rows_of_session(const AuthdProcess& authd, const std::string& token) {
  return without_trailing_newlines(authd.sql(
      "SELECT count(*) FROM sessions WHERE hex(token_digest) = '" + sha256_hex(token) + "'"));
}

// 8.2: a pass of the pruner skips the rows another transaction holds (an
// erasure's, a client's deletion's, another instance's pass) and leaves
// them to its next pass. Before, it waited for such a row while holding
// the expired rows it had deleted, which that writer could be about to
// delete too (a deadlock), and removed nothing until the row was let go.
TEST(Housekeeping, Interface_8_2_ThePrunerLeavesARowAnotherTransactionHoldsToItsNextPass) {
  AUTHD_POSTGRES_ONLY();
  std::vector<std::string> args = fast_hashing();
  args.insert(args.end(), {"--session-lifetime", "5s", "--prune-interval", "200ms"});
  AuthdProcess authd(args);
  authd.add_user("held@example.com", kPassword);
  authd.add_user("free@example.com", kPassword);
  const std::string held = authd.login("held@example.com", kPassword);
  const std::string free = authd.login("free@example.com", kPassword);
  ASSERT_FALSE(held.empty() || free.empty());

  HeldLock writer(authd, "BEGIN; SELECT 1 FROM sessions WHERE hex(token_digest) = '" +
                             sha256_hex(held) + "' FOR UPDATE");
  ASSERT_NE(writer
                .then("SELECT 'rows=' || count(*) FROM sessions WHERE hex(token_digest) = '" +
                      sha256_hex(held) + "'")
                .find("rows=1"),
            std::string::npos)
      << "the session was gone before its row was held";
  // Both sessions expire five seconds after their login.
  EXPECT_TRUE(eventually([&] { return rows_of_session(authd, free) == "0"; }))
      << "the pruner removed nothing while a row was held";
  EXPECT_EQ(rows_of_session(authd, held), "1");
  writer.release();
  EXPECT_TRUE(eventually([&] { return rows_of_session(authd, held) == "0"; }));
}

// 8.2: a pass removes a backlog (the throttle events of an attack, say) in
// transactions of at most 5,000 rows of a table, one after another until
// none is left. One transaction for it all held the rows, and on SQLite
// the single writer, for as long as the delete took, and a backlog large
// enough outlasted the database's deadline on every pass and was never
// removed. Each pass logs the rows of each transaction ("pruned", debug).
TEST(Housekeeping, Interface_8_2_APassRemovesABacklogInTransactionsOfBoundedSize) {
  std::vector<std::string> args = fast_hashing();
  args.insert(args.end(), {"--prune-interval", "200ms", "--log-level", "debug"});
  AuthdProcess authd(args);
  constexpr long kBacklog = 12'345;
  const std::string backlog = std::to_string(kBacklog);
  const std::string numbers =
      on_postgres() ? "generate_series(1, " + backlog + ")"
                    : "(WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < " +
                          backlog + ") SELECT i FROM n)";
  authd.sql("INSERT INTO throttle_events (key, at) SELECT 'backlog', 1 FROM " + numbers);
  // Each transaction's line is written after its commit: the log is read
  // until it accounts for the backlog.
  std::vector<long> transactions;
  auto logged = [&] {
    transactions.clear();
    long rows = 0;
    for (const nlohmann::json& line : log_lines(authd)) {
      if (line.value("event", "") != "pruned") continue;
      transactions.push_back(line.value("rows", 0L));
      rows += transactions.back();
    }
    return rows;
  };
  EXPECT_TRUE(eventually([&] { return logged() >= kBacklog; })) << authd.log_text();
  EXPECT_EQ(without_trailing_newlines(
                authd.sql("SELECT count(*) FROM throttle_events WHERE key = 'backlog'")),
            "0");
  for (long rows : transactions) EXPECT_LE(rows, 5'000);
  EXPECT_GE(transactions.size(), 3u);
}

}  // namespace
}  // namespace authd::test::housekeeping
