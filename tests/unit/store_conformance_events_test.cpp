// The store conformance suite for the audit trail's reading (interface.md
// 14.2 and 14.1.5): what a filter by account or by type returns, newest
// first and paged by seq, is the same whether the events have been indexed
// yet or not (SQLite indexes them in bulk after they are written,
// PostgreSQL as it writes them), across pruning. Run unchanged on SQLite
// and on PostgreSQL (the PostgreSQL cases skip unless AUTHD_TEST_POSTGRES
// names a server).
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <vector>

#include "store/pruning.hpp"
#include "store_conformance_fixture.hpp"

namespace authd {
namespace {

template <class Backend>
class StoreConformanceEvents : public StoreConformanceFixture<Backend> {
 protected:
  static EventRecord event_of(const std::string& type, const std::string& user, Millis at) {
    EventRecord event;
    event.id = new_uuid_v7(at);
    event.at = at;
    event.type = type;
    event.user_id = user;
    event.actor = "self";
    event.detail = "{}";
    return event;
  }

  std::int64_t append(const std::string& type, const std::string& user, Millis at) {
    std::int64_t seq = 0;
    this->write([&](Transaction& tx) { seq = tx.events().append(event_of(type, user, at)); });
    return seq;
  }

  // `count` events from long ago (at 1,000 and after), in one transaction.
  void append_old(int count) {
    this->write([&](Transaction& tx) {
      for (int i = 0; i < count; ++i) tx.events().append(event_of("logout", "alice", 1'000 + i));
    });
  }

  std::int64_t prune(Millis horizon) {
    std::int64_t removed = 0;
    this->write([&](Transaction& tx) { removed = tx.events().prune(horizon); });
    return removed;
  }

  std::int64_t index(std::int64_t at_most = 1'000) {
    std::int64_t indexed = 0;
    this->write([&](Transaction& tx) { indexed = tx.events().index_appended(at_most); });
    return indexed;
  }

  // The seqs `filter` lists, newest first.
  std::vector<std::int64_t> seqs(const EventFilter& filter) {
    std::vector<std::int64_t> found;
    this->read([&](Transaction& tx) {
      for (const EventRecord& event : tx.events().list(filter)) found.push_back(event.seq);
    });
    return found;
  }

  static EventFilter of_user(const std::string& user, int limit = 100,
                             std::optional<std::int64_t> before = std::nullopt) {
    EventFilter filter;
    filter.user_id = user;
    filter.limit = limit;
    filter.before_seq = before;
    return filter;
  }

  static EventFilter of_type(const std::string& type, int limit = 100) {
    EventFilter filter;
    filter.type = type;
    filter.limit = limit;
    return filter;
  }
};

using Backends = ::testing::Types<OnSqlite, OnPostgres>;
TYPED_TEST_SUITE(StoreConformanceEvents, Backends);

// interface.md 14.2.1: a page by account or by type that starts among the
// events not yet indexed and ends among the indexed ones lists each event
// once, newest first, and the cursor crosses the boundary both ways.
TYPED_TEST(StoreConformanceEvents, Interface_14_2_1_PagesCrossFromUnindexedToIndexedEvents) {
  std::int64_t a = this->append("logout", "alice", 1'000);
  std::int64_t b = this->append("logout", "bob", 1'001);
  std::int64_t c = this->append("login.succeeded", "alice", 1'002);
  this->index();
  std::int64_t d = this->append("logout", "alice", 1'003);
  std::int64_t e = this->append("login.succeeded", "alice", 1'004);
  this->append("logout", "bob", 1'005);

  using Seqs = std::vector<std::int64_t>;
  EXPECT_EQ(this->seqs(this->of_user("alice")), (Seqs{e, d, c, a}));
  EXPECT_EQ(this->seqs(this->of_user("alice", 3)), (Seqs{e, d, c})) << "cut in the indexed part";
  EXPECT_EQ(this->seqs(this->of_user("alice", 1)), (Seqs{e})) << "cut in the unindexed part";
  EXPECT_EQ(this->seqs(this->of_user("alice", 2, e)), (Seqs{d, c})) << "cursor in the newest part";
  EXPECT_EQ(this->seqs(this->of_user("alice", 2, c)), (Seqs{a})) << "cursor in the indexed part";
  EXPECT_EQ(this->seqs(this->of_type("logout")).front(), e + 1);
  EXPECT_EQ(this->seqs(this->of_type("logout")).size(), 4u);
  EXPECT_EQ(this->seqs(this->of_type("login.succeeded")), (Seqs{e, c}));
  EXPECT_EQ(this->seqs(this->of_user("bob")).back(), b);
  EXPECT_TRUE(this->seqs(this->of_user("carol")).empty());

  EventFilter both = this->of_user("alice");
  both.type = "logout";
  EXPECT_EQ(this->seqs(both), (Seqs{d, a}));
  EventFilter since = this->of_user("alice");
  since.since = 1'002;
  EXPECT_EQ(this->seqs(since), (Seqs{e, d, c}));
}

// interface.md 14.1.5: indexing takes the oldest first, at most what it is
// asked for, and never changes what a filter lists.
TYPED_TEST(StoreConformanceEvents, Interface_14_1_5_IndexingInStepsChangesNoListing) {
  std::vector<std::int64_t> written;
  for (int i = 0; i < 5; ++i) written.insert(written.begin(), this->append("logout", "alice", i));
  for (int step = 0; step < 4; ++step) {
    EXPECT_EQ(this->seqs(this->of_user("alice")), written) << "after step " << step;
    EXPECT_EQ(this->seqs(this->of_type("logout")), written) << "after step " << step;
    this->index(2);
  }
  EXPECT_EQ(this->index(), 0) << "nothing is left to index";
}

// interface.md 14.1.5: once pruning has emptied the trail, the events
// written next are found by account and by type, before and after they are
// indexed (SQLite numbers an emptied table's rows from 1 again).
TYPED_TEST(StoreConformanceEvents, Interface_14_1_5_EventsAfterAnEmptyingPruneAreFound) {
  this->append("logout", "alice", 1'000);
  this->append("logout", "alice", 1'001);
  this->index();
  this->write([&](Transaction& tx) { EXPECT_EQ(tx.events().prune(5'000), 2); });
  std::int64_t next = this->append("logout", "alice", 6'000);
  using Seqs = std::vector<std::int64_t>;
  EXPECT_EQ(this->seqs(this->of_user("alice")), (Seqs{next}));
  this->index();
  EXPECT_EQ(this->seqs(this->of_user("alice")), (Seqs{next}));
  EXPECT_EQ(this->seqs(this->of_type("logout")), (Seqs{next}));
}

// interface.md 8.2: pruning removes at most 5,000 events in a transaction,
// the oldest first; the next transaction goes on from there.
TYPED_TEST(StoreConformanceEvents, Interface_8_2_PruningTakesATransactionsWorthOfEventsAtATime) {
  this->append_old(5'003);
  std::int64_t kept = this->append("logout", "alice", 100'000);
  EXPECT_EQ(this->prune(50'000), 5'000);
  EXPECT_EQ(this->prune(50'000), 3);
  EXPECT_EQ(this->prune(50'000), 0);
  EXPECT_EQ(this->seqs(this->of_user("alice")), (std::vector<std::int64_t>{kept}));
}

// interface.md 8.2: a gap in the sequence (appends rolled back, whose
// numbers PostgreSQL does not give back) does not make a transaction remove
// fewer than 5,000 events while more are expired: fewer would tell
// Housekeeping that the trail is done.
TYPED_TEST(StoreConformanceEvents,
           Interface_8_2_PruningTakesATransactionsWorthWhateverGapsTheSequenceHas) {
  this->append_old(2'000);
  EXPECT_THROW(this->store_->run(Store::Mode::write,
                                 [&](Transaction& tx) {
                                   for (int i = 0; i < 100; ++i)
                                     tx.events().append(this->event_of("logout", "alice", 1'000));
                                   throw std::runtime_error("rolled back");
                                 }),
               std::runtime_error);
  this->append_old(3'003);
  std::int64_t kept = this->append("logout", "alice", 100'000);
  EXPECT_EQ(this->prune(50'000), 5'000);
  EXPECT_EQ(this->prune(50'000), 3);
  EXPECT_EQ(this->seqs(this->of_user("alice")), (std::vector<std::int64_t>{kept}));
}

// interface.md 8.2: an event at or after the horizon among the oldest ends
// what a transaction removes, even when more than 5,000 events are older
// than the horizon after it (the trail is pruned in the order written).
TYPED_TEST(StoreConformanceEvents, Interface_8_2_PruningStopsAtTheFirstEventToKeep) {
  this->append_old(10);
  this->append("logout", "alice", 100'000);
  this->append_old(6'000);
  EXPECT_EQ(this->prune(50'000), 10);
  EXPECT_EQ(this->prune(50'000), 0);
}

// interface.md 8.2: a pass's next transaction runs only the steps that
// gave a full batch: the trail, which gave fewer, is not pruned again in
// that pass (an expired event written meanwhile stays for the next pass).
TYPED_TEST(StoreConformanceEvents, Interface_8_2_APassRunsAgainOnlyTheStepsThatGaveAFullBatch) {
  this->write([&](Transaction& tx) {
    for (int i = 0; i < 5'001; ++i) tx.throttle().insert_event("pass", 1'000 + i);
  });
  PrunePass pass({.now = 50'000, .throttle = 50'000, .sent_mail = 0, .audit = 50'000});
  std::int64_t removed = 0;
  this->write([&](Transaction& tx) { removed = pass.run(tx); });
  pass.committed();
  EXPECT_EQ(removed, 5'000);
  EXPECT_FALSE(pass.done());

  std::int64_t written_meanwhile = this->append("logout", "alice", 1'000);
  this->write([&](Transaction& tx) { removed = pass.run(tx); });
  pass.committed();
  EXPECT_EQ(removed, 1);  // the last throttling event, not the event
  EXPECT_TRUE(pass.done());
  EXPECT_EQ(this->seqs(this->of_user("alice")), (std::vector<std::int64_t>{written_meanwhile}));
}

}  // namespace
}  // namespace authd
