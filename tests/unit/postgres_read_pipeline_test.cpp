// store/postgres: reads in batches on one connection, each a fiber whose
// statements share the batch's round trips (store/postgres/read_pipeline.hpp,
// docs/design/performance-choices.md#postgresql-reads-in-one-pipeline). Each
// read must still get its own rows, and its own outcome: a statement that
// fails, a read that throws, or a server that goes away mid-batch touch no
// other read's answer. Skipped unless AUTHD_TEST_POSTGRES names a server
// (scripts/with-postgres.sh; scripts/test.sh runs them there).
#include <gtest/gtest.h>
#include <libpq-fe.h>

#include <algorithm>
#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "crypto/random.hpp"
#include "postgres_batch.hpp"
#include "postgres_test_database.hpp"
#include "store/postgres/connection.hpp"
#include "store/postgres/postgres_store.hpp"
#include "store/postgres/read_pipeline.hpp"

namespace authd {
namespace {

using namespace std::chrono_literals;

class PostgresReadPipelineTest : public ::testing::Test {
 protected:
  void SetUp() override {
    AUTHD_SKIP_WITHOUT_POSTGRES();
    url_ = test::fresh_postgres_database();
    store_ = std::make_unique<postgres::PostgresStore>(url_, 2, 5s);
    store_->migrate();
    for (int i = 0; i < kReads; ++i) {
      UserRecord u;
      u.id = new_uuid_v7(1'000 + i);
      u.email = "user" + std::to_string(i) + "@example.com";
      u.created_at = u.updated_at = 1'000;
      ASSERT_EQ(store_->run(Store::Mode::write, [&](Transaction& tx) { tx.users().insert(u); }),
                StoreStatus::ok);
      users_.push_back(u);
    }
  }

  // Runs `works` as one batch of writes that may share a transaction
  // (Store::run_together), unit i naming the throttling keys keys[i].
  std::vector<TransactionUnit> run_together(std::vector<std::function<void(Transaction&)>>& works,
                                            const std::vector<std::vector<std::string>>& keys) {
    std::vector<TransactionUnit> units(works.size());
    for (std::size_t i = 0; i < units.size(); ++i) {
      units[i].work = &works[i];
      if (i < keys.size()) units[i].lock_keys = keys[i];
    }
    store_->run_together(units);
    return units;
  }

  // Logouts of user i's session "token i", each recording the steps it
  // took; `keys` as in run_together.
  std::vector<std::string> logout_steps(const std::vector<std::vector<std::string>>& keys) {
    Millis expires = now_millis() + 60'000;
    EXPECT_EQ(store_->run(Store::Mode::write,
                          [&](Transaction& tx) {
                            for (int i = 0; i < kReads; ++i)
                              tx.sessions().insert({sha256("token " + std::to_string(i)),
                                                    users_[i].id, 1'000, expires});
                          }),
              StoreStatus::ok);
    std::vector<std::string> steps;
    std::vector<std::optional<UserRecord>> ended(kReads);
    std::vector<std::function<void(Transaction&)>> works;
    works.reserve(kReads);
    for (int i = 0; i < kReads; ++i) {
      works.emplace_back([i, &steps, &ended](Transaction& tx) {
        steps.push_back("sent " + std::to_string(i));
        ended[i] = tx.sessions().revoke_live(sha256("token " + std::to_string(i)), now_millis());
        steps.push_back("answered " + std::to_string(i));
      });
    }
    for (const TransactionUnit& unit : run_together(works, keys))
      EXPECT_EQ(unit.status, StoreStatus::ok);
    for (int i = 0; i < kReads; ++i) {
      EXPECT_TRUE(ended[i].has_value()) << i;
      if (ended[i]) {
        EXPECT_EQ(ended[i]->id, users_[i].id);
      }
    }
    return steps;
  }

  // Runs `works` as one batch of reads; each unit's outcome.
  std::vector<TransactionUnit> run_reads(std::vector<std::function<void(Transaction&)>>& works) {
    std::vector<TransactionUnit> units(works.size());
    for (std::size_t i = 0; i < units.size(); ++i) units[i].work = &works[i];
    store_->run_reads_together(units);
    return units;
  }

  // Reads that each look up user i by id into found[i].
  std::vector<std::function<void(Transaction&)>> lookups(
      std::vector<std::optional<UserRecord>>& found) {
    found.assign(kReads, std::nullopt);
    std::vector<std::function<void(Transaction&)>> works;
    works.reserve(kReads);
    for (int i = 0; i < kReads; ++i)
      works.emplace_back(
          [this, i, &found](Transaction& tx) { found[i] = tx.users().by_id(users_[i].id); });
    return works;
  }

  // Every read but `failing` answered ok with its own user.
  void expect_the_others_found_their_own(const std::vector<TransactionUnit>& units,
                                         const std::vector<std::optional<UserRecord>>& found,
                                         int failing) {
    for (int i = 0; i < kReads; ++i) {
      if (i == failing) continue;
      EXPECT_EQ(units[i].status, StoreStatus::ok) << i;
      ASSERT_TRUE(found[i].has_value()) << i;
      EXPECT_EQ(found[i]->id, users_[i].id);
    }
  }

  static constexpr int kReads = 8;
  std::string url_;
  std::unique_ptr<postgres::PostgresStore> store_;
  std::vector<UserRecord> users_;
};

TEST_F(PostgresReadPipelineTest, Interface_8_2_ReadsOfABatchAreAllSentBeforeTheFirstAnswerIsRead) {
  // Two statements a read, on a connection that has prepared none yet: the
  // first batch prepares them in flight, the second finds them prepared.
  for (int round = 0; round < 2; ++round) {
    std::vector<std::string> steps;
    std::vector<std::optional<UserRecord>> by_id(kReads);
    std::vector<std::optional<UserRecord>> by_email(kReads);
    std::vector<std::function<void(Transaction&)>> works;
    works.reserve(kReads);
    for (int i = 0; i < kReads; ++i) {
      works.emplace_back([this, i, &steps, &by_id, &by_email](Transaction& tx) {
        steps.push_back("sent " + std::to_string(i));
        by_id[i] = tx.users().by_id(users_[i].id);
        by_email[i] = tx.users().by_email(users_[(i + 1) % kReads].email);
        steps.push_back("answered " + std::to_string(i));
      });
    }
    for (const TransactionUnit& unit : run_reads(works)) EXPECT_EQ(unit.status, StoreStatus::ok);

    std::vector<std::string> expected;
    expected.reserve(std::size_t{2} * kReads);
    for (int i = 0; i < kReads; ++i) expected.push_back("sent " + std::to_string(i));
    for (int i = 0; i < kReads; ++i) expected.push_back("answered " + std::to_string(i));
    EXPECT_EQ(steps, expected) << "round " << round;
    for (int i = 0; i < kReads; ++i) {
      ASSERT_TRUE(by_id[i].has_value()) << i;
      EXPECT_EQ(by_id[i]->email, users_[i].email);
      ASSERT_TRUE(by_email[i].has_value()) << i;
      EXPECT_EQ(by_email[i]->id, users_[(i + 1) % kReads].id);
    }
  }
}

// A connection thread's turn may gather hundreds of reads (store/database.hpp):
// they go out in pipelines of 64, each sent whole before its first answer
// is read, and each read still gets its own row.
TEST_F(PostgresReadPipelineTest, Interface_8_2_ManyReadsOfOneTurnGoInPipelinesOf64) {
  constexpr int kMany = 150;
  std::vector<std::string> steps;
  std::vector<std::optional<UserRecord>> found(kMany);
  std::vector<std::function<void(Transaction&)>> works;
  works.reserve(kMany);
  for (int i = 0; i < kMany; ++i) {
    works.emplace_back([this, i, &steps, &found](Transaction& tx) {
      steps.push_back("sent " + std::to_string(i));
      found[i] = tx.users().by_id(users_[i % kReads].id);
      steps.push_back("answered " + std::to_string(i));
    });
  }
  for (const TransactionUnit& unit : run_reads(works)) EXPECT_EQ(unit.status, StoreStatus::ok);

  std::vector<std::string> expected;
  for (int first = 0; first < kMany; first += 64) {
    const int end = std::min(first + 64, kMany);
    for (int i = first; i < end; ++i) expected.push_back("sent " + std::to_string(i));
    for (int i = first; i < end; ++i) expected.push_back("answered " + std::to_string(i));
  }
  EXPECT_EQ(steps, expected);
  for (int i = 0; i < kMany; ++i) {
    ASSERT_TRUE(found[i].has_value()) << i;
    EXPECT_EQ(found[i]->id, users_[i % kReads].id) << i;
  }
}

// A pipelined batch of /forgot requests inside one transaction, whose
// server stops answering: the unit that waited past the deadline has the
// TimedOutError, the units parked behind it LostUnderAnotherRead, and a
// unit earlier in the batch's order may be one of those. The batch must
// fail with the time-out, which answers every unit unavailable at once,
// not with a LostUnderAnotherRead, which would run each unit again alone,
// each waiting out a deadline of its own. Needs no server.
TEST(ReadPipelineFailure, Interface_8_3_ABatchFailsWithItsCauseNotWithAUnitLostUnderIt) {
  std::vector<TransactionUnit> units(4);
  units[0].error = std::make_exception_ptr(postgres::LostUnderAnotherRead());
  units[2].error = std::make_exception_ptr(postgres::TimedOutError("query: timed out"));
  units[3].error = std::make_exception_ptr(postgres::LostUnderAnotherRead());
  std::exception_ptr cause = postgres::take_first_cause(units);
  EXPECT_THROW(std::rethrow_exception(cause), postgres::TimedOutError);
  for (const TransactionUnit& unit : units) EXPECT_FALSE(unit.error) << "each error taken";

  units[1].error = std::make_exception_ptr(postgres::LostUnderAnotherRead());
  EXPECT_THROW(std::rethrow_exception(postgres::take_first_cause(units)),
               postgres::LostUnderAnotherRead)
      << "with no other, the first";
  EXPECT_FALSE(postgres::take_first_cause(units)) << "none failed";
}

// A turn's reads share one deadline, whatever the number of pipelines they
// need: when the server stops answering (here the users table locked by a
// migration's ALTER TABLE, say), the reads of the pipelines that start
// after the deadline are answered unavailable without being sent, so the
// connection thread that runs them waits about once, not once for each of
// its pipelines. (The first pipeline's PREPARE gives up at lock_timeout,
// a little before the deadline, and its other reads, which run the name it
// was preparing, fail with it: the second pipeline may start, but not the
// third.) Every read is unavailable: none is a 500.
TEST_F(PostgresReadPipelineTest, Interface_8_3_TheReadsOfOneTurnShareOneDeadline) {
  postgres::PostgresStore store(url_, 2, 300ms);
  PGconn* locker = PQconnectdb(url_.c_str());
  PQclear(PQexec(locker, "BEGIN"));
  PQclear(PQexec(locker, "LOCK TABLE users IN ACCESS EXCLUSIVE MODE"));

  constexpr int kMany = 150;  // three pipelines
  int started = 0;
  std::vector<std::function<void(Transaction&)>> works;
  works.reserve(kMany);
  for (int i = 0; i < kMany; ++i)
    works.emplace_back([this, i, &started](Transaction& tx) {
      ++started;
      tx.users().by_id(users_[i % kReads].id);
    });
  std::vector<TransactionUnit> units(works.size());
  for (std::size_t i = 0; i < units.size(); ++i) units[i].work = &works[i];
  store.run_reads_together(units);
  PQclear(PQexec(locker, "ROLLBACK"));
  PQfinish(locker);

  for (const TransactionUnit& unit : units) EXPECT_EQ(unit.status, StoreStatus::unavailable);
  EXPECT_LE(started, 128) << "the third pipeline was sent after the deadline";
}

// The statements a connection has prepared on the server (its session's
// pg_prepared_statements, this count's own statement included).
std::int64_t statements_prepared(postgres::Connection& connection) {
  return connection.run("SELECT count(*) FROM pg_prepared_statements").integer(0, 0);
}

// The reads of a batch that run one statement the connection has not
// prepared yet prepare it once: the first prepares it in flight and the
// others use its name, rather than each preparing it under a name of its own
// that nothing would ever deallocate.
TEST_F(PostgresReadPipelineTest, Interface_8_2_TheReadsOfABatchPrepareAStatementOnce) {
  postgres::Connection connection(url_, 5s, std::chrono::steady_clock::now() + 5s);
  std::vector<std::optional<UserRecord>> found;
  auto works = lookups(found);
  for (const TransactionUnit& unit : test::run_as_batch(connection, works, false))
    EXPECT_EQ(unit.status, StoreStatus::ok);
  for (int i = 0; i < kReads; ++i) EXPECT_TRUE(found[i].has_value()) << i;
  EXPECT_EQ(statements_prepared(connection), 2) << "the lookup's, and the count's";
}

// The same for a statement planned again each second (the throttle counts,
// the outbox claim): however many batches replan it, the connection keeps
// one prepared copy of it on the server.
TEST_F(PostgresReadPipelineTest, Interface_8_2_AStatementPlannedAgainInABatchLeavesNoCopyBehind) {
  postgres::Connection connection(url_, 5s, std::chrono::steady_clock::now() + 5s);
  connection.set_replan_after(0ms);  // every run plans it again
  for (int batch = 0; batch < 3; ++batch) {
    std::vector<std::function<void(Transaction&)>> works;
    works.reserve(kReads);
    for (int i = 0; i < kReads; ++i)
      works.emplace_back([i](Transaction& tx) {
        EXPECT_TRUE(tx.throttle().event_times("forgot:client:" + std::to_string(i), 0, 10).empty());
      });
    for (const TransactionUnit& unit : test::run_as_batch(connection, works, false))
      EXPECT_EQ(unit.status, StoreStatus::ok);
  }
  EXPECT_EQ(statements_prepared(connection), 2) << "the count's, and this one's";
}

TEST_F(PostgresReadPipelineTest, Interface_8_2_ReadsOfABatchSeeWhatOtherInstancesCommittedBefore) {
  std::vector<std::optional<UserRecord>> found;
  auto works = lookups(found);
  postgres::PostgresStore other(url_, 1, 5s);
  UserRecord changed = users_[3];
  changed.display_name = "Committed elsewhere";
  ASSERT_EQ(other.run(Store::Mode::write, [&](Transaction& tx) { tx.users().update(changed); }),
            StoreStatus::ok);

  for (const TransactionUnit& unit : run_reads(works)) EXPECT_EQ(unit.status, StoreStatus::ok);
  ASSERT_TRUE(found[3].has_value());
  EXPECT_EQ(found[3]->display_name, "Committed elsewhere");
}

TEST_F(PostgresReadPipelineTest, AStatementThatFailsFailsOnlyItsOwnRead) {
  std::vector<std::optional<UserRecord>> found;
  auto works = lookups(found);
  // Not UTF-8: the server refuses the parameter (SQLSTATE 22021).
  works[2] = [](Transaction& tx) { tx.users().by_email("bad\xff\xfe@example.com"); };
  std::vector<TransactionUnit> units = run_reads(works);
  EXPECT_EQ(units[2].status, StoreStatus::failed);
  expect_the_others_found_their_own(units, found, 2);
}

TEST_F(PostgresReadPipelineTest, AReadThatThrowsGetsItsOwnErrorAndTheOthersTheirRows) {
  std::vector<std::optional<UserRecord>> found;
  auto works = lookups(found);
  works[5] = [this](Transaction& tx) {
    tx.users().by_id(users_[5].id);
    throw std::runtime_error("the domain's own failure");
  };
  std::vector<TransactionUnit> units = run_reads(works);
  EXPECT_EQ(units[5].status, StoreStatus::failed);
  ASSERT_TRUE(units[5].error);
  EXPECT_THROW(std::rethrow_exception(units[5].error), std::runtime_error);
  expect_the_others_found_their_own(units, found, 5);
}

// A statement sent ahead is answered with the next awaited one, which in a
// pipeline would be the next read's: a read that tries fails alone, before
// anything is sent.
TEST_F(PostgresReadPipelineTest, AReadThatSendsAStatementAheadFailsAloneBeforeSendingIt) {
  std::vector<std::optional<UserRecord>> found;
  auto works = lookups(found);
  works[4] = [](Transaction& tx) { tx.throttle().add_event("a read's key", 1'000); };
  std::vector<TransactionUnit> units = run_reads(works);
  EXPECT_EQ(units[4].status, StoreStatus::failed);
  expect_the_others_found_their_own(units, found, 4);
}

// Parked fibers share the thread's record of the exceptions being handled,
// so a statement inside a catch handler is refused rather than parked.
TEST_F(PostgresReadPipelineTest, AStatementRunWhileHandlingAnExceptionFailsOnlyItsRead) {
  std::vector<std::optional<UserRecord>> found;
  auto works = lookups(found);
  works[1] = [this](Transaction& tx) {
    try {
      throw std::runtime_error("handled");
    } catch (const std::runtime_error&) {
      tx.users().by_id(users_[1].id);
    }
  };
  std::vector<TransactionUnit> units = run_reads(works);
  EXPECT_EQ(units[1].status, StoreStatus::failed);
  expect_the_others_found_their_own(units, found, 1);
}

// Logouts count nothing another unit writes: a batch of them sends every
// unit's statement before reading the first answer, inside its one
// transaction (PostgresStore::run_together).
TEST_F(PostgresReadPipelineTest,
       Interface_8_3_LogoutsOfABatchAreAllSentBeforeTheFirstAnswerIsRead) {
  std::vector<std::string> expected;
  expected.reserve(std::size_t{2} * kReads);
  for (int i = 0; i < kReads; ++i) expected.push_back("sent " + std::to_string(i));
  for (int i = 0; i < kReads; ++i) expected.push_back("answered " + std::to_string(i));
  EXPECT_EQ(logout_steps({}), expected);
}

// A unit that counts throttling events must see the events of the units
// before it, but only those units that name its key wait for each other,
// and only where they use it (shared_throttle.hpp): a batch in which two
// units name one key still sends every unit's statement before the first
// answer is read, when no unit is yet at its turn on the key.
TEST_F(PostgresReadPipelineTest,
       Interface_6_Forgot_5_ABatchWhoseUnitsShareAKeyIsStillSentBeforeTheFirstAnswer) {
  std::vector<std::string> expected;
  expected.reserve(std::size_t{2} * kReads);
  for (int i = 0; i < kReads; ++i) expected.push_back("sent " + std::to_string(i));
  for (int i = 0; i < kReads; ++i) expected.push_back("answered " + std::to_string(i));
  EXPECT_EQ(logout_steps({{"forgot:client:192.0.2.1"},
                          {},
                          {},
                          {"mail:reset:a@example.com", "forgot:client:192.0.2.1"}}),
            expected);
}

// Units whose keys no other unit of the batch names (/forgot requests of
// different clients for different addresses) count nothing another writes:
// their statements go out before the first answer is read, as logouts'.
TEST_F(PostgresReadPipelineTest,
       Interface_6_Forgot_5_ABatchWhoseUnitsNameDifferentKeysIsSentBeforeTheFirstAnswer) {
  std::vector<std::vector<std::string>> keys;
  keys.reserve(kReads);
  for (int i = 0; i < kReads; ++i)
    keys.push_back({"forgot:client:192.0.2." + std::to_string(i),
                    "mail:reset:" + std::to_string(i) + "@example.com"});
  keys[2].push_back(keys[2].front());  // a unit that names its key twice
  std::vector<std::string> expected;
  expected.reserve(std::size_t{2} * kReads);
  for (int i = 0; i < kReads; ++i) expected.push_back("sent " + std::to_string(i));
  for (int i = 0; i < kReads; ++i) expected.push_back("answered " + std::to_string(i));
  EXPECT_EQ(logout_steps(keys), expected);
}

TEST_F(PostgresReadPipelineTest,
       Interface_8_2_ASessionEndedMidBatchMakesItsReadsUnavailableAndTheNextBatchReconnects) {
  std::vector<std::optional<UserRecord>> found;
  auto works = lookups(found);
  // The first read ends the batch's session before it sends its statement.
  works[0] = [this, &found](Transaction& tx) {
    test::end_authd_sessions(url_);
    found[0] = tx.users().by_id(users_[0].id);
  };
  for (const TransactionUnit& unit : run_reads(works))
    EXPECT_EQ(unit.status, StoreStatus::unavailable);

  auto again = lookups(found);
  for (const TransactionUnit& unit : run_reads(again)) EXPECT_EQ(unit.status, StoreStatus::ok);
  for (int i = 0; i < kReads; ++i) EXPECT_TRUE(found[i].has_value()) << i;
}

}  // namespace
}  // namespace authd
