// store/postgres: the audit events of a batch of logouts go to the server as
// one INSERT, sent ahead of the batch's COMMIT (store/postgres/event_batch.hpp,
// docs/design/performance-choices.md#postgresql-logout-batches-in-two-statements).
// Each event must be stored as it was given, NULLs and quotes included, in the
// order the units added them, with its webhook delivery when asked. Skipped
// unless AUTHD_TEST_POSTGRES names a server (scripts/with-postgres.sh;
// scripts/test.sh runs them there).
#include <gtest/gtest.h>

#include <chrono>
#include <functional>
#include <string>
#include <vector>

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

EventRecord event(int i) {
  EventRecord e;
  e.id = "event-" + std::to_string(i);
  e.at = 1'000 + i;
  e.type = "logout";
  e.actor = "self";
  e.detail = "{}";
  return e;
}

class PostgresEventBatchTest : public ::testing::Test {
 protected:
  void SetUp() override {
    AUTHD_SKIP_WITHOUT_POSTGRES();
    url_ = test::migrated_postgres_database();
  }

  // Runs one unit per event, as a batch of logouts: each adds its event
  // (queued for webhooks when the database is `delivering`), inside
  // BEGIN ... COMMIT.
  void run_logout_batch(postgres::Connection& connection, const std::vector<EventRecord>& events,
                        bool delivering) {
    std::vector<std::function<void(Transaction&)>> works;
    for (std::size_t i = 0; i < events.size(); ++i)
      works.emplace_back([&events, i](Transaction& tx) { tx.events().add(events[i]); });
    connection.execute("BEGIN READ WRITE");
    connection.execute(delivering ? "UPDATE webhook_config SET delivering = true"
                                  : "UPDATE webhook_config SET delivering = false");
    for (const TransactionUnit& unit : test::run_as_batch(connection, works, true))
      EXPECT_EQ(unit.status, StoreStatus::ok);
    connection.execute("COMMIT");
  }

  std::string url_;
};

// interface.md 14.1: every logout of the batch has its event, as given, in
// the units' order; the batch prepared no INSERT of one event.
TEST_F(PostgresEventBatchTest, Interface_14_1_TheEventsOfABatchOfLogoutsAreOneInsertInTheirOrder) {
  std::vector<EventRecord> events;
  for (int i = 0; i < 4; ++i) events.push_back(event(i));
  events[0].user_id = "user-0";
  events[0].client_address = "192.0.2.1";
  events[0].user_agent = R"(a"b\c,NULL}{ "x")";
  events[0].request_id = "req-0";
  events[0].detail = R"({"quoted":"\"","back":"\\"})";
  events[1].request_id = "";                 // empty, not missing
  events[1].client_address = " 192.0.2.9 ";  // its spaces kept
  events[2].user_id = "NULL";                // the word, not a missing value
  events[3].detail = R"({"sessionId":"s"})";
  postgres::Connection connection(url_, 5s, std::chrono::steady_clock::now() + 5s);
  run_logout_batch(connection, events, true);

  postgres::Result prepared = connection.run(
      "SELECT count(*) FROM pg_prepared_statements WHERE statement LIKE '%INSERT INTO events%'"
      " AND statement LIKE '%VALUES%' AND statement NOT LIKE '%pg_prepared_statements%'");
  EXPECT_EQ(prepared.integer(0, 0), 0) << "an event was inserted by a statement of its own";

  EventFilter all;
  std::vector<EventRecord> stored;
  postgres::PostgresStore store(url_, 1, 5s);
  ASSERT_EQ(store.run(Store::Mode::read, [&](Transaction& tx) { stored = tx.events().list(all); }),
            StoreStatus::ok);
  ASSERT_EQ(stored.size(), events.size());
  for (std::size_t i = 0; i < events.size(); ++i) {
    const EventRecord& got = stored[events.size() - 1 - i];  // listed newest first
    const EventRecord& want = events[i];
    EXPECT_EQ(got.id, want.id) << i;
    EXPECT_EQ(got.at, want.at) << i;
    EXPECT_EQ(got.type, want.type) << i;
    EXPECT_EQ(got.user_id, want.user_id) << i;
    EXPECT_EQ(got.actor, want.actor) << i;
    EXPECT_EQ(got.client_address, want.client_address) << i;
    EXPECT_EQ(got.user_agent, want.user_agent) << i;
    EXPECT_EQ(got.request_id, want.request_id) << i;
    EXPECT_EQ(got.detail, want.detail) << i;
    if (i > 0) {
      EXPECT_GT(got.seq, stored[events.size() - i].seq) << i;
    }
  }
  postgres::Result deliveries = connection.run(
      "SELECT string_agg(e.id, ',' ORDER BY e.seq) FROM webhook_deliveries d"
      " JOIN events e ON e.seq = d.event_seq");
  EXPECT_EQ(deliveries.text(0, 0), "event-0,event-1,event-2,event-3");
}

// A failure of the batch's INSERT is reported by its COMMIT, which then
// fails: nothing of the batch is kept (PostgresStore::run_together then
// runs each logout alone).
TEST_F(PostgresEventBatchTest, Interface_8_3_AFailedInsertOfTheBatchsEventsFailsItsCommit) {
  std::vector<EventRecord> events{event(0), event(1)};
  events[1].user_agent = "bad\xff\xfe";  // not UTF-8: the server refuses it
  postgres::Connection connection(url_, 5s, std::chrono::steady_clock::now() + 5s);
  EXPECT_THROW(run_logout_batch(connection, events, false), StoreError);
  connection.execute("ROLLBACK");
  EXPECT_EQ(connection.run("SELECT count(*) FROM events").integer(0, 0), 0);
}

// A batch undone by one unit's failure sends no events: they would fail in
// the aborted transaction and take its ROLLBACK down with them, leaving the
// connection inside it. Each unit then runs alone on that same connection:
// the one that added an event commits it, the failing one fails alone.
TEST_F(PostgresEventBatchTest, Interface_8_3_AnUndoneBatchSendsNoEventsAndItsUnitsRunAlone) {
  postgres::PostgresStore store(url_, 1, 5s);
  std::vector<std::function<void(Transaction&)>> works{
      [](Transaction& tx) { tx.events().add(event(0)); },
      [](Transaction& tx) {  // no such user: the foreign key refuses it
        tx.sessions().insert({sha256("orphan"), "no-such-user", 1'000, 2'000});
      }};
  std::vector<TransactionUnit> units(works.size());
  for (std::size_t i = 0; i < units.size(); ++i) units[i].work = &works[i];
  store.run_together(units);
  EXPECT_EQ(units[0].status, StoreStatus::ok);
  EXPECT_EQ(units[1].status, StoreStatus::failed);
  std::vector<EventRecord> stored;
  ASSERT_EQ(store.run(Store::Mode::read,
                      [&](Transaction& tx) { stored = tx.events().list(EventFilter{}); }),
            StoreStatus::ok);
  ASSERT_EQ(stored.size(), 1u);
  EXPECT_EQ(stored[0].id, "event-0");
}

}  // namespace
}  // namespace authd
