// store/postgres: a batch of /forgot requests in one transaction shares its
// throttling statements (store/postgres/shared_throttle.hpp, mail_batch.hpp,
// docs/design/performance-choices.md#postgresql-forgot-batches-share-statements):
// the keys' locks in one statement, each step's counts in one, and the rows the
// units only add (throttle events, mails) in one INSERT per table. Every count
// must still be exact: a unit counts the events stored before it, its own
// included, and every mail is stored as it was given. Skipped unless
// AUTHD_TEST_POSTGRES names a server (scripts/with-postgres.sh; scripts/test.sh
// runs them there).
#include <gtest/gtest.h>

#include <chrono>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "auth/mail_flows/mail_request.hpp"
#include "crypto/random.hpp"
#include "postgres_test_database.hpp"
#include "store/postgres/connection.hpp"
#include "store/postgres/postgres_store.hpp"
#include "store/postgres/read_pipeline.hpp"
#include "store/postgres/transaction.hpp"

namespace authd {
namespace {

using namespace std::chrono_literals;

constexpr Millis kBatchNow = 1'000'000;

// A /forgot request's limits, as request_password_reset builds them: the
// client's counter and the address's two mail limits.
MailRequestLimits batch_forgot_limits(int i) {
  return MailRequestLimits{
      {ThrottleCounter{"forgot:client:192.0.2." + std::to_string(i), RateLimit{2, 60'000ms}}},
      "mail:reset:user" + std::to_string(i) + "@example.com",
      RateLimit{3, 60'000ms},
      RateLimit{10, 3'600'000ms}};
}

OutboxRecord forgot_mail(int i) {
  OutboxRecord mail;
  mail.kind = "password_reset";
  mail.email = "user" + std::to_string(i) + "@example.com";
  return mail;
}

class PostgresSharedThrottleTest : public ::testing::Test {
 protected:
  void SetUp() override {
    AUTHD_SKIP_WITHOUT_POSTGRES();
    url_ = test::migrated_postgres_database();
    connection_.emplace(url_, 5s, std::chrono::steady_clock::now() + 5s);
  }

  // Runs `works` as PostgresStore::run_together runs a batch: one
  // transaction, every key locked first, the units as fibers of one
  // pipeline, unit i naming keys[i]. The statements it sent.
  std::uint64_t run_batch(std::vector<std::function<void(Transaction&)>>& works,
                          const std::vector<std::vector<std::string>>& unit_keys) {
    postgres::Connection& db = *connection_;
    const std::uint64_t before = db.statements_sent();
    std::vector<TransactionUnit> units(works.size());
    std::vector<std::string> keys;
    for (std::size_t i = 0; i < units.size(); ++i) {
      units[i].work = &works[i];
      if (i < unit_keys.size()) {
        units[i].lock_keys = unit_keys[i];
        keys.insert(keys.end(), unit_keys[i].begin(), unit_keys[i].end());
      }
    }
    db.send_ahead("BEGIN READ WRITE");
    postgres::PostgresTransaction tx(db, true);
    tx.lock_throttle_keys(keys);
    postgres::run_in_one_pipeline(db, units, true, [&tx](TransactionUnit& unit) {
      (*unit.work)(tx);
      unit.status = StoreStatus::ok;
    });
    for (const TransactionUnit& unit : units) EXPECT_EQ(unit.status, StoreStatus::ok);
    db.execute("COMMIT");
    return db.statements_sent() - before;
  }

  // Adds `count` /forgot requests, from client first, first + 1, ..., to
  // `works` and their keys to `keys`; each sets its verdict in `verdicts`.
  static void add_forgot_requests(int first, int count,
                                  std::vector<std::function<void(Transaction&)>>& works,
                                  std::vector<std::vector<std::string>>& keys,
                                  std::vector<ThrottleVerdict>& verdicts) {
    const std::size_t place = verdicts.size();
    verdicts.resize(place + static_cast<std::size_t>(count));
    for (int i = 0; i < count; ++i) {
      MailRequestLimits limits = batch_forgot_limits(first + i);
      keys.push_back(limits.keys());
      works.emplace_back([limits, &verdicts, place, first, i](Transaction& tx) {
        verdicts[place + static_cast<std::size_t>(i)] =
            count_and_queue_mail(tx, limits, forgot_mail(first + i), kBatchNow, 0ms);
      });
    }
  }

  // A batch of `count` /forgot requests, from client first, first + 1, ...
  std::uint64_t run_forgot_batch(int first, int count, std::vector<ThrottleVerdict>& verdicts) {
    verdicts.clear();
    std::vector<std::function<void(Transaction&)>> works;
    std::vector<std::vector<std::string>> keys;
    add_forgot_requests(first, count, works, keys, verdicts);
    return run_batch(works, keys);
  }

  std::int64_t number(const char* sql) { return connection_->run(sql).integer(0, 0); }

  std::string url_;
  std::optional<postgres::Connection> connection_;
};

// interface.md 6 /forgot 5 and 8.3: what a batch of requests costs the
// server does not grow with the batch: each statement serves every unit.
TEST_F(PostgresSharedThrottleTest,
       Interface_6_Forgot_5_ABatchOfEightRequestsSendsNoMoreStatementsThanABatchOfTwo) {
  std::vector<ThrottleVerdict> verdicts;
  const std::uint64_t two = run_forgot_batch(0, 2, verdicts);
  const std::uint64_t eight = run_forgot_batch(10, 8, verdicts);
  EXPECT_EQ(eight, two);
  for (const ThrottleVerdict& verdict : verdicts) EXPECT_TRUE(verdict.allowed);
  EXPECT_EQ(number("SELECT count(*) FROM throttle_events"), 2 * (2 + 8));
  EXPECT_EQ(number("SELECT count(*) FROM outbox"), 2 + 8);
}

// A batch of writes may hold logouts and /forgot requests together. A
// /forgot's second count (its address's) waits for the units behind the
// logouts too, and goes as one statement for the batch, whatever order
// their first statements were answered in.
TEST_F(PostgresSharedThrottleTest,
       Interface_6_Forgot_5_ALogoutInTheBatchDoesNotSplitTheSecondCount) {
  std::vector<ThrottleVerdict> verdicts;
  const std::uint64_t forgot_only = run_forgot_batch(0, 3, verdicts);
  std::vector<std::function<void(Transaction&)>> mixed;
  std::vector<std::vector<std::string>> mixed_keys;
  add_forgot_requests(10, 1, mixed, mixed_keys, verdicts);
  // Second in the batch, behind the first /forgot.
  mixed_keys.emplace_back();
  mixed.emplace_back(
      [](Transaction& tx) { tx.sessions().revoke_live(sha256("no such token"), kBatchNow); });
  add_forgot_requests(11, 2, mixed, mixed_keys, verdicts);
  EXPECT_EQ(run_batch(mixed, mixed_keys), forgot_only + 1) << "one statement for the logout";
}

// interface.md 6 /forgot 5: each unit's counts see what was stored before
// the batch, and no unit's limit is charged for another's request.
TEST_F(PostgresSharedThrottleTest, Interface_6_Forgot_5_EachRequestOfABatchIsCountedOnItsOwnKeys) {
  std::vector<ThrottleVerdict> verdicts;
  run_forgot_batch(0, 4, verdicts);  // one event on each client's key
  run_forgot_batch(1, 1, verdicts);  // client 1's second: at its limit of 2
  run_forgot_batch(0, 4, verdicts);
  ASSERT_EQ(verdicts.size(), 4U);
  EXPECT_TRUE(verdicts[0].allowed);
  EXPECT_FALSE(verdicts[1].allowed) << "client 1 had used its 2 requests";
  EXPECT_TRUE(verdicts[2].allowed);
  EXPECT_TRUE(verdicts[3].allowed);
  // Refused: nothing counted or queued for it.
  EXPECT_EQ(number("SELECT count(*) FROM throttle_events WHERE key = 'forgot:client:192.0.2.1'"),
            2);
  EXPECT_EQ(number("SELECT count(*) FROM throttle_events WHERE key = 'forgot:client:192.0.2.0'"),
            2);
  // Address 0's mails: two, both under its short limit of 3.
  EXPECT_EQ(number("SELECT count(*) FROM outbox WHERE email = 'user0@example.com'"), 2);
  EXPECT_EQ(number("SELECT count(*) FROM outbox WHERE email = 'user1@example.com'"), 2);
}

// The events a unit adds are kept back for one INSERT, but a later count of
// its own key sees them, as when each went ahead on its own.
TEST_F(PostgresSharedThrottleTest, Interface_6_Forgot_5_AUnitCountsTheEventsItAddedEarlier) {
  std::vector<std::size_t> seen(3);
  std::vector<std::function<void(Transaction&)>> works;
  std::vector<std::vector<std::string>> keys;
  for (std::size_t i = 0; i < seen.size(); ++i) {
    const std::string key = "forgot:client:198.51.100." + std::to_string(i);
    keys.push_back({key});
    works.emplace_back([key, &seen, i](Transaction& tx) {
      tx.throttle().event_times(key, 0, 10);  // a first count, shared
      tx.throttle().add_event(key, kBatchNow);
      tx.throttle().add_event(key, kBatchNow + 1);
      seen[i] = tx.throttle().event_times(key, 0, 10).size();
    });
  }
  run_batch(works, keys);
  EXPECT_EQ(seen, (std::vector<std::size_t>{2, 2, 2}));
  EXPECT_EQ(number("SELECT count(*) FROM throttle_events"), 6);
}

// interface.md 8.3: a batch whose unit fails is undone whole, and each
// request then runs alone: the throttling events and mails the batch kept
// back are never sent, so each request that succeeds alone is counted and
// queued once, and the failed one not at all (PostgresStore::run_together).
TEST_F(PostgresSharedThrottleTest, Interface_8_3_AnUndoneBatchKeepsNothingBackAndItsUnitsRunAlone) {
  postgres::PostgresStore store(url_, 1, 5s);
  std::vector<std::function<void(Transaction&)>> works;
  std::vector<TransactionUnit> units(3);
  works.reserve(units.size());
  for (int i = 0; i < 3; ++i)
    works.emplace_back([i](Transaction& tx) {
      count_and_queue_mail(tx, batch_forgot_limits(i), forgot_mail(i), kBatchNow, 0ms);
      if (i == 1)  // after its counts and its mail: no such user, the foreign key refuses it
        tx.sessions().insert({sha256("orphan"), "no-such-user", 1'000, 2'000});
    });
  std::vector<std::vector<std::string>> keys;  // the units' spans point here
  for (std::size_t i = 0; i < units.size(); ++i)
    keys.push_back(batch_forgot_limits(static_cast<int>(i)).keys());
  for (std::size_t i = 0; i < units.size(); ++i) {
    units[i].work = &works[i];
    units[i].lock_keys = keys[i];
  }
  store.run_together(units);
  EXPECT_EQ(units[0].status, StoreStatus::ok);
  EXPECT_EQ(units[1].status, StoreStatus::failed);
  EXPECT_EQ(units[2].status, StoreStatus::ok);
  EXPECT_EQ(number("SELECT count(*) FROM outbox"), 2);
  EXPECT_EQ(number("SELECT count(*) FROM outbox WHERE email = 'user1@example.com'"), 0);
  EXPECT_EQ(number("SELECT count(*) FROM throttle_events"), 2 * 2);
  EXPECT_EQ(
      number("SELECT count(*) FROM throttle_events WHERE key LIKE '%.1' OR key LIKE '%user1@%'"),
      0);
}

// interface.md 11.4 and 6 /forgot 4: the mails of a batch are stored as
// given, a sign-up's hash and name and a reset's missing ones alike, in
// the order their units queued them.
TEST_F(PostgresSharedThrottleTest, Interface_6_Forgot_4_TheMailsOfABatchAreStoredAsGivenInOrder) {
  std::vector<OutboxRecord> mails;
  for (int i = 0; i < 3; ++i) {
    OutboxRecord mail = forgot_mail(i);
    mail.created_at = kBatchNow + i;
    mail.next_attempt_at = kBatchNow + 100 - i;
    mail.attempts = i;
    mails.push_back(mail);
  }
  mails[1].kind = "signup";
  mails[1].password_hash = R"($argon2id$v=19$m=19456,t=2,p=1$c2FsdA$"quoted",NULL{})";
  mails[1].display_name = "NULL";  // the word, not a missing value
  mails[2].user_id = "user-2";
  mails[2].display_name = "";  // empty, not missing
  std::vector<std::function<void(Transaction&)>> works;
  works.reserve(mails.size());
  for (const OutboxRecord& mail : mails)
    works.emplace_back([&mail](Transaction& tx) { tx.outbox().add(mail); });
  run_batch(works, {});

  postgres::Result rows = connection_->run(
      "SELECT kind, user_id, email, created_at, attempts, next_attempt_at, password_hash,"
      " display_name FROM outbox ORDER BY id");
  ASSERT_EQ(rows.rows(), 3);
  for (int i = 0; i < 3; ++i) {
    const OutboxRecord& want = mails[static_cast<std::size_t>(i)];
    EXPECT_EQ(rows.text(i, 0), want.kind) << i;
    EXPECT_EQ(rows.text(i, 1), want.user_id) << i;
    EXPECT_EQ(rows.text(i, 2), want.email) << i;
    EXPECT_EQ(rows.integer(i, 3), want.created_at) << i;
    EXPECT_EQ(rows.integer(i, 4), want.attempts) << i;
    EXPECT_EQ(rows.integer(i, 5), want.next_attempt_at) << i;
    EXPECT_EQ(rows.optional_text(i, 6), want.password_hash) << i;
    EXPECT_EQ(rows.optional_text(i, 7), want.display_name) << i;
  }
}

// One client address's /forgot requests (a NAT, an untrusted proxy) in one
// batch: each names the client's key, and they count it in the batch's
// order (shared_throttle.hpp: each takes its turn on the key).
class PostgresSameKeyBatchTest : public PostgresSharedThrottleTest {
 protected:
  // A /forgot request for user<address>@example.com from `client`, whose
  // limit is `per_client` a minute; its verdict goes to the next place.
  void add(const std::string& client, int address, int per_client) {
    MailRequestLimits limits{
        {ThrottleCounter{"forgot:client:" + client, RateLimit{per_client, 60'000ms}}},
        "mail:reset:user" + std::to_string(address) + "@example.com",
        RateLimit{3, 60'000ms},
        RateLimit{10, 3'600'000ms}};
    keys_.push_back(limits.keys());
    const std::size_t place = places_++;
    works_.emplace_back([this, limits, place, address](Transaction& tx) {
      verdicts_[place] = count_and_queue_mail(tx, limits, forgot_mail(address), kBatchNow, 0ms);
    });
  }
  std::uint64_t run() {
    verdicts_.assign(places_, ThrottleVerdict{});
    const std::uint64_t statements = run_batch(works_, keys_);
    works_.clear();
    keys_.clear();
    places_ = 0;
    return statements;
  }
  std::vector<bool> allowed() const {
    std::vector<bool> allowed;
    for (const ThrottleVerdict& verdict : verdicts_) allowed.push_back(verdict.allowed);
    return allowed;
  }

  std::vector<std::function<void(Transaction&)>> works_;
  std::vector<std::vector<std::string>> keys_;
  std::vector<ThrottleVerdict> verdicts_;
  std::size_t places_ = 0;
};

// interface.md 6 /forgot 5: requests of one client in one batch are counted
// in the batch's order and exactly, as if each ran alone after the one
// before: with 3 a minute and one request already counted, the client's
// next two are allowed and the rest refused, whatever other clients'
// requests lie between them; nothing is counted or queued for a refused one.
TEST_F(PostgresSameKeyBatchTest, Interface_6_Forgot_5_OneClientsRequestsInABatchAreCountedInOrder) {
  add("192.0.2.7", 100, 3);
  run();
  add("192.0.2.7", 101, 3);
  add("192.0.2.8", 102, 3);
  add("192.0.2.7", 103, 3);
  add("192.0.2.7", 104, 3);
  add("192.0.2.9", 105, 3);
  add("192.0.2.7", 106, 3);
  run();
  EXPECT_EQ(allowed(), (std::vector<bool>{true, true, true, false, true, false}));
  EXPECT_GT(verdicts_[3].retry_after.count(), 0);
  EXPECT_EQ(number("SELECT count(*) FROM throttle_events WHERE key = 'forgot:client:192.0.2.7'"),
            3);
  EXPECT_EQ(number("SELECT count(*) FROM outbox WHERE email IN ('user104@example.com',"
                   " 'user106@example.com')"),
            0);
  EXPECT_EQ(number("SELECT count(*) FROM outbox"), 5);
}

// interface.md 6 /forgot 5: one client asking for one address five times
// in one batch: every request is within the client's limit, and the
// address's limit (3 a minute) queues the first three mails only.
TEST_F(PostgresSameKeyBatchTest, Interface_6_Forgot_5_OneAddressInABatchGetsMailsUpToItsLimit) {
  for (int i = 0; i < 5; ++i) add("192.0.2.7", 7, 10);
  run();
  EXPECT_EQ(allowed(), std::vector<bool>(5, true));
  EXPECT_EQ(number("SELECT count(*) FROM throttle_events WHERE key = 'forgot:client:192.0.2.7'"),
            5);
  EXPECT_EQ(number("SELECT count(*) FROM throttle_events WHERE key LIKE 'mail:reset:%'"), 3);
  EXPECT_EQ(number("SELECT count(*) FROM outbox"), 3);
}

// interface.md 8.3: the requests of one client share the batch's round
// trips as those of different clients do: once a request has counted on
// the client's key and added its event, the next one counts there from
// what the batch knows, beside the first one's address count.
TEST_F(PostgresSameKeyBatchTest,
       Interface_8_3_EightRequestsOfOneClientSendNoMoreStatementsThanTwoOfDifferentClients) {
  add("192.0.2.1", 1, 100);
  add("192.0.2.2", 2, 100);
  const std::uint64_t two = run();
  for (int i = 0; i < 8; ++i) add("192.0.2.7", 10 + i, 100);
  const std::uint64_t eight = run();
  EXPECT_LE(eight, two);
  EXPECT_EQ(allowed(), std::vector<bool>(8, true));
  EXPECT_EQ(number("SELECT count(*) FROM throttle_events WHERE key = 'forgot:client:192.0.2.7'"),
            8);
}

// A unit that comes back to a key it said it was done with would count
// without the events of the units that came after it: the batch is undone,
// and each unit runs alone, counted exactly (PostgresStore::run_together).
TEST_F(PostgresSameKeyBatchTest, Interface_8_3_AUnitThatComesBackToAKeyItLetGoRunsAlone) {
  postgres::PostgresStore store(url_, 1, 5s);
  const std::vector<std::string> key{"forgot:client:192.0.2.7"};
  std::vector<std::size_t> seen(2);
  std::vector<std::function<void(Transaction&)>> works;
  for (std::size_t i = 0; i < seen.size(); ++i)
    works.emplace_back([&key, &seen, i](Transaction& tx) {
      tx.throttle().event_times(key[0], 0, 10);
      tx.throttle().add_event(key[0], kBatchNow);
      tx.throttle().done_with(key);
      seen[i] = tx.throttle().event_times(key[0], 0, 10).size();  // back to it
    });
  std::vector<TransactionUnit> units(2);
  for (std::size_t i = 0; i < units.size(); ++i) {
    units[i].work = &works[i];
    units[i].lock_keys = key;
  }
  store.run_together(units);
  EXPECT_EQ(units[0].status, StoreStatus::ok);
  EXPECT_EQ(units[1].status, StoreStatus::ok);
  EXPECT_EQ(seen, (std::vector<std::size_t>{1, 2})) << "each alone, one after the other";
  EXPECT_EQ(number("SELECT count(*) FROM throttle_events"), 2);
}

}  // namespace
}  // namespace authd
