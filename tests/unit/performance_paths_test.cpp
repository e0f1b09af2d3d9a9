// The fast paths of docs/design/performance-choices.md, checked for correctness
// (never for speed):
// - group commit (store/database.hpp, SqliteStore::run_writes): concurrent
//   writes share one durable commit, a unit that throws is undone alone, and
//   no writer resumes before its commit (interface.md 8.3: a 200 means
//   durable);
// - group reads (Database::read, SqliteStore::run_reads): the reads of one
//   turn of an event loop share a read transaction on that loop's thread,
//   yet fail alone and see every commit that returned before them, and are
//   served from the read connections' own page cache.
// The warm argon2 memory is checked by tests/warm_argon2, the one test
// program that links it.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <future>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>

#include "crypto/random.hpp"
#include "store/batching/scheduled_database.hpp"
#include "store/sqlite/sqlite_store.hpp"
#include "temp_directory.hpp"

namespace authd {
namespace {

class GroupCommit : public ::testing::Test {
 protected:
  void SetUp() override { sqlite::SqliteStore(path_).migrate(); }

  static UserRecord user(std::string email) {
    UserRecord u;
    u.id = new_uuid_v7(1'000);
    u.email = std::move(email);
    u.created_at = 1'000;
    u.updated_at = 1'000;
    return u;
  }

  // Read through another store, i.e. another connection: sees only what was committed.
  bool committed(const std::string& email) {
    sqlite::SqliteStore other(path_);
    bool found = false;
    other.run(Store::Mode::read,
              [&](Transaction& tx) { found = tx.users().by_email(email).has_value(); });
    return found;
  }

  test::TempDirectory dir_;
  std::string path_ = dir_.file("authd.db");
};

// interface.md 8.3: every unit of a batch is committed (durably, visible to
// another connection) and reported ok; a unit that throws is undone alone and
// its exception goes back to its own caller.
TEST_F(GroupCommit, Interface_8_3_AUnitThatThrowsIsUndoneAloneTheOthersCommit) {
  sqlite::SqliteStore store(path_);
  std::function<void(Transaction&)> first = [](Transaction& tx) {
    tx.users().insert(user("a@b.c"));
  };
  std::function<void(Transaction&)> throws = [](Transaction& tx) {
    tx.users().insert(user("b@b.c"));
    throw std::runtime_error("bug in a handler");
  };
  std::function<void(Transaction&)> store_error = [](Transaction& tx) {
    tx.users().insert(user("c@b.c"));
    // No such user: the foreign key fails, a StoreError.
    tx.sessions().insert(SessionRecord{sha256("t"), "no-such-user", 0, 10});
  };
  std::function<void(Transaction&)> last = [](Transaction& tx) {
    // Sees the first unit's write, as a later transaction would.
    ASSERT_TRUE(tx.users().by_email("a@b.c").has_value());
    tx.users().insert(user("d@b.c"));
  };
  std::vector<BatchedStore::Unit> units(4);
  units[0].work = &first;
  units[1].work = &throws;
  units[2].work = &store_error;
  units[3].work = &last;
  store.run_writes(units);

  EXPECT_EQ(units[0].status, StoreStatus::ok);
  EXPECT_TRUE(units[1].error != nullptr);
  EXPECT_EQ(units[2].status, StoreStatus::failed);
  EXPECT_TRUE(units[2].error == nullptr);
  EXPECT_EQ(units[3].status, StoreStatus::ok);
  EXPECT_TRUE(committed("a@b.c"));
  EXPECT_FALSE(committed("b@b.c"));
  EXPECT_FALSE(committed("c@b.c"));
  EXPECT_TRUE(committed("d@b.c"));
}

// interface.md 8.3: through Database (the server's path), many concurrent
// writes all succeed, and each coroutine resumes only once its write is
// committed: another connection already sees it.
TEST_F(GroupCommit, Interface_8_3_AWriterResumesOnlyAfterItsCommit) {
  sqlite::SqliteStore store(path_);
  ScheduledDatabase db(store, 2);
  boost::asio::io_context io;
  constexpr int kWriters = 40;
  int seen_after_resume = 0;
  int ok = 0;
  for (int i = 0; i < kWriters; ++i) {
    auto writer = [&, i]() -> boost::asio::awaitable<void> {
      std::string email = "user" + std::to_string(i) + "@b.c";
      auto work = [&](Transaction& tx) { tx.users().insert(user(email)); };
      StoreStatus status = co_await db.write(work);
      if (status == StoreStatus::ok) ++ok;
      if (committed(email)) ++seen_after_resume;
    };
    boost::asio::co_spawn(io, writer, boost::asio::detached);
  }
  io.run();  // single-threaded: the counters need no lock
  db.stop();
  EXPECT_EQ(ok, kWriters);
  EXPECT_EQ(seen_after_resume, kWriters);
}

// The outbox worker and the pruner block on Store::run from threads of
// their own. With group commit their writes run on the writer's thread, in
// its queue, instead of racing it for SQLite's write lock (QueuedWriteStore):
// checked by the thread each write ran on. Once the writer is stopping, a
// write is refused at once instead of waiting for ever.
TEST_F(GroupCommit, BackgroundThreadWritesRunInTheWritersQueue) {
  sqlite::SqliteStore store(path_);
  ScheduledDatabase db(store, 2);
  Store& background = db.for_background_threads();
  std::promise<void> release;
  std::shared_future<void> released = release.get_future().share();
  std::promise<std::thread::id> first_ran;
  std::thread::id holder_id, second_ran_on;
  StoreStatus first = StoreStatus::failed, second = StoreStatus::failed;

  std::thread holder([&] {
    holder_id = std::this_thread::get_id();
    first = background.run(Store::Mode::write, [&](Transaction& tx) {
      tx.users().insert(user("first@b.c"));
      first_ran.set_value(std::this_thread::get_id());
      released.wait();  // holds the writer, and SQLite's write lock
    });
  });
  std::thread::id writer_thread = first_ran.get_future().get();
  std::thread other([&] {
    second = background.run(Store::Mode::write, [&](Transaction& tx) {
      second_ran_on = std::this_thread::get_id();
      tx.users().insert(user("second@b.c"));
    });
  });
  release.set_value();
  holder.join();
  other.join();
  db.stop();

  EXPECT_NE(writer_thread, holder_id);
  EXPECT_EQ(second_ran_on, writer_thread);
  EXPECT_EQ(first, StoreStatus::ok);
  EXPECT_EQ(second, StoreStatus::ok);
  EXPECT_TRUE(committed("first@b.c"));
  EXPECT_TRUE(committed("second@b.c"));

  StoreStatus after_stop = background.run(
      Store::Mode::write, [](Transaction& tx) { tx.users().insert(user("late@b.c")); });
  EXPECT_EQ(after_stop, StoreStatus::unavailable);
  EXPECT_FALSE(committed("late@b.c"));
}

// Group reads (SqliteStore::run_reads): the units of a batch share one read
// transaction, yet a unit that throws fails alone, its exception going back
// to its own caller.
TEST_F(GroupCommit, AReadThatThrowsFailsAloneTheOthersRead) {
  sqlite::SqliteStore store(path_);
  ASSERT_EQ(
      store.run(Store::Mode::write, [](Transaction& tx) { tx.users().insert(user("a@b.c")); }),
      StoreStatus::ok);
  bool first_found = false, last_found = false;
  std::function<void(Transaction&)> first = [&](Transaction& tx) {
    first_found = tx.users().by_email("a@b.c").has_value();
  };
  std::function<void(Transaction&)> throws = [](Transaction&) {
    throw std::runtime_error("bug in a handler");
  };
  std::function<void(Transaction&)> store_error = [](Transaction&) {
    throw StoreError("disk I/O error");
  };
  std::function<void(Transaction&)> last = [&](Transaction& tx) {
    last_found = tx.users().by_email("a@b.c").has_value();
  };
  std::vector<BatchedStore::Unit> units(4);
  units[0].work = &first;
  units[1].work = &throws;
  units[2].work = &store_error;
  units[3].work = &last;
  store.run_reads(units);

  EXPECT_EQ(units[0].status, StoreStatus::ok);
  EXPECT_TRUE(units[1].error != nullptr);
  EXPECT_EQ(units[2].status, StoreStatus::failed);
  EXPECT_TRUE(units[2].error == nullptr);
  EXPECT_EQ(units[3].status, StoreStatus::ok);
  EXPECT_TRUE(first_found);
  EXPECT_TRUE(last_found);
}

// interface.md 8.3 with group reads: a read asked for after a commit has
// returned sees it, though reads share transactions. Clients write a user
// and read it back, round after round, so that read batches and commits
// interleave.
TEST_F(GroupCommit, Interface_8_3_AReadAfterACommitSeesIt) {
  sqlite::SqliteStore store(path_);
  ScheduledDatabase db(store, 2);
  boost::asio::io_context io;
  constexpr int kClients = 4;
  constexpr int kRounds = 15;
  int found_after_commit = 0;
  for (int c = 0; c < kClients; ++c) {
    auto client = [&, c]() -> boost::asio::awaitable<void> {
      for (int round = 0; round < kRounds; ++round) {
        std::string email = "user" + std::to_string(c) + "-" + std::to_string(round) + "@b.c";
        auto write = [&](Transaction& tx) { tx.users().insert(user(email)); };
        StoreStatus written = co_await db.write(write);
        bool found = false;
        auto read = [&](Transaction& tx) { found = tx.users().by_email(email).has_value(); };
        StoreStatus read_status = co_await db.read(read);
        if (written == StoreStatus::ok && read_status == StoreStatus::ok && found)
          ++found_after_commit;
      }
    };
    boost::asio::co_spawn(io, client, boost::asio::detached);
  }
  io.run();  // single-threaded: the counter needs no lock
  db.stop();
  EXPECT_EQ(found_after_commit, kClients * kRounds);
}

// The group readers' connections keep their own, larger page cache
// (--sqlite-read-cache-mib): once a set of rows larger than SQLite's default
// 2 MiB cache has been read, reading it again reads nothing from the file.
// With the default cache the second pass misses again, which is what the
// larger cache is for
// (docs/design/performance-choices.md#the-read-connections-page-cache).
TEST_F(GroupCommit, ReadsAreServedFromTheReadersOwnPageCache) {
  constexpr int kUsers = 3000;  // about 3.5 MiB of pages: more than 2 MiB
  {
    sqlite::SqliteStore writer(path_);
    ASSERT_EQ(writer.run(Store::Mode::write,
                         [](Transaction& tx) {
                           for (int i = 0; i < kUsers; ++i) {
                             UserRecord u = user("user" + std::to_string(i) + "@b.c");
                             u.display_name = std::string(1000, 'n');
                             tx.users().insert(u);
                           }
                         }),
              StoreStatus::ok);
  }
  // Misses of the second of two passes over every user, one read batch each.
  auto second_pass_misses = [&](std::size_t read_cache_kib) {
    sqlite::SqliteStore store(path_, read_cache_kib);
    int found = 0;
    std::function<void(Transaction&)> read_all = [&](Transaction& tx) {
      for (int i = 0; i < kUsers; ++i)
        found += tx.users().by_email("user" + std::to_string(i) + "@b.c").has_value() ? 1 : 0;
    };
    std::vector<BatchedStore::Unit> units(1);
    units[0].work = &read_all;
    store.run_reads(units);
    std::int64_t after_first = store.read_cache_misses();
    store.run_reads(units);
    EXPECT_EQ(units[0].status, StoreStatus::ok);
    EXPECT_EQ(found, 2 * kUsers);
    EXPECT_GT(after_first, 0) << "the first pass reads the pages from the file";
    return store.read_cache_misses() - after_first;
  };
  EXPECT_EQ(second_pass_misses(16 * 1024), 0);
  EXPECT_GT(second_pass_misses(0), 0) << "SQLite's default cache is too small for these rows";
}

// The store as Database sees it, counting the batches of reads it is handed.
class BatchCountingStore final : public Store, public BatchedStore {
 public:
  explicit BatchCountingStore(sqlite::SqliteStore& store) : store_(store) {}
  StoreStatus run(Mode mode, const std::function<void(Transaction&)>& work) override {
    return store_.run(mode, work);
  }
  int migrate() override { return store_.migrate(); }
  void run_writes(std::span<Unit> units) override { store_.run_writes(units); }
  void run_reads(std::span<Unit> units) override {
    batch_sizes.push_back(units.size());
    store_.run_reads(units);
  }
  std::vector<std::size_t> batch_sizes;  // one connection thread: no lock

 private:
  sqlite::SqliteStore& store_;
};

// Reads asked for during one turn of a connection thread's event loop run
// together, in one batch (one read transaction), on that thread itself;
// a read asked for later, by a resumed caller, goes into the next batch.
TEST_F(GroupCommit, TheReadsOfOneTurnOfTheLoopRunAsOneBatchOnItsThread) {
  sqlite::SqliteStore sqlite(path_);
  ASSERT_EQ(
      sqlite.run(Store::Mode::write, [](Transaction& tx) { tx.users().insert(user("a@b.c")); }),
      StoreStatus::ok);
  BatchCountingStore store(sqlite);
  ScheduledDatabase db(store, 1);
  boost::asio::io_context io;
  constexpr int kReaders = 5;
  int found = 0, on_the_loops_thread = 0;
  const std::thread::id loop_thread = std::this_thread::get_id();  // io.run() below
  for (int r = 0; r < kReaders; ++r) {
    auto reader = [&]() -> boost::asio::awaitable<void> {
      for (int round = 0; round < 2; ++round) {
        auto read = [&](Transaction& tx) {
          found += tx.users().by_email("a@b.c").has_value() ? 1 : 0;
          on_the_loops_thread += std::this_thread::get_id() == loop_thread ? 1 : 0;
        };
        StoreStatus status = co_await db.read(read);
        EXPECT_EQ(status, StoreStatus::ok);
      }
    };
    boost::asio::co_spawn(io, reader, boost::asio::detached);
  }
  io.run_for(std::chrono::seconds(20));  // a lost batch fails the test rather than hanging it
  db.stop();
  EXPECT_EQ(found, 2 * kReaders);
  EXPECT_EQ(on_the_loops_thread, 2 * kReaders);
  EXPECT_EQ(store.batch_sizes, (std::vector<std::size_t>{kReaders, kReaders}));
}

// Two databases read from one loop in the same turn: each read runs on its
// own database (LoopReads keeps a queue per Database).
TEST_F(GroupCommit, TwoDatabasesReadFromOneLoopEachOnItsOwnStore) {
  test::TempDirectory other_dir;
  std::string other_path = other_dir.file("other.db");
  sqlite::SqliteStore first(path_), second(other_path);
  second.migrate();
  ASSERT_EQ(
      first.run(Store::Mode::write, [](Transaction& tx) { tx.users().insert(user("first@b.c")); }),
      StoreStatus::ok);
  ASSERT_EQ(second.run(Store::Mode::write,
                       [](Transaction& tx) { tx.users().insert(user("second@b.c")); }),
            StoreStatus::ok);
  ScheduledDatabase first_db(first, 1), second_db(second, 1);
  boost::asio::io_context io;
  bool first_sees_own = false, first_sees_other = true, second_sees_own = false,
       second_sees_other = true;
  auto read_first = [&]() -> boost::asio::awaitable<void> {
    auto read = [&](Transaction& tx) {
      first_sees_own = tx.users().by_email("first@b.c").has_value();
      first_sees_other = tx.users().by_email("second@b.c").has_value();
    };
    co_await first_db.read(read);
  };
  auto read_second = [&]() -> boost::asio::awaitable<void> {
    auto read = [&](Transaction& tx) {
      second_sees_own = tx.users().by_email("second@b.c").has_value();
      second_sees_other = tx.users().by_email("first@b.c").has_value();
    };
    co_await second_db.read(read);
  };
  boost::asio::co_spawn(io, read_first, boost::asio::detached);
  boost::asio::co_spawn(io, read_second, boost::asio::detached);
  io.run_for(std::chrono::seconds(20));
  first_db.stop();
  second_db.stop();
  EXPECT_TRUE(first_sees_own);
  EXPECT_FALSE(first_sees_other);
  EXPECT_TRUE(second_sees_own);
  EXPECT_FALSE(second_sees_other);
}

// Each connection thread runs its own reads: one held on one thread's loop
// does not hold up a read on another's, which runs on that other thread.
TEST_F(GroupCommit, AReadHeldOnOneLoopLeavesTheOtherLoopsFree) {
  sqlite::SqliteStore store(path_);
  ScheduledDatabase db(store, 1);
  boost::asio::io_context held_loop, other_loop;
  std::promise<void> release;
  std::shared_future<void> released = release.get_future().share();
  std::atomic<bool> held_done = false;
  bool other_done_before_release = false;
  std::thread::id other_read_ran_on;

  auto holder = [&]() -> boost::asio::awaitable<void> {
    // Bounded, so that a read stuck behind it fails the test instead of
    // hanging it.
    auto hold = [&](Transaction&) { released.wait_for(std::chrono::seconds(20)); };
    co_await db.read(hold);
    held_done = true;
  };
  auto other = [&]() -> boost::asio::awaitable<void> {
    std::optional<UserRecord> found;
    auto read = [&](Transaction& tx) {
      found = tx.users().by_email("nobody@b.c");
      other_read_ran_on = std::this_thread::get_id();
    };
    StoreStatus status = co_await db.read(read);
    EXPECT_EQ(status, StoreStatus::ok);
    other_done_before_release = !held_done;
    release.set_value();
  };
  boost::asio::co_spawn(held_loop, holder, boost::asio::detached);
  boost::asio::co_spawn(other_loop, other, boost::asio::detached);
  std::thread held_thread([&] { held_loop.run_for(std::chrono::seconds(30)); });
  other_loop.run_for(std::chrono::seconds(20));
  held_thread.join();
  db.stop();
  EXPECT_TRUE(held_done);
  EXPECT_TRUE(other_done_before_release);
  EXPECT_EQ(other_read_ran_on, std::this_thread::get_id()) << "other_loop runs on this thread";
}

// GET /metrics' counts run beside the requests' reads (Database::read_aside),
// on a thread of their own, not on the asking loop's: with a connection
// thread held by a slow read, they still run, and the held read finishes
// only when released.
TEST_F(GroupCommit, SlowReadsAsideDoNotWaitForAHeldRead) {
  sqlite::SqliteStore store(path_);
  ScheduledDatabase db(store, 1);
  boost::asio::io_context held_loop, aside_loop;
  std::promise<void> release;
  std::shared_future<void> released = release.get_future().share();
  std::atomic<bool> read_done = false;
  bool aside_done = false, read_done_before_aside = false;
  std::thread::id count_ran_on;

  auto holder = [&]() -> boost::asio::awaitable<void> {
    // Bounded, so that a read_aside queued behind it fails the test instead
    // of hanging it.
    auto hold = [&](Transaction&) { released.wait_for(std::chrono::seconds(20)); };
    co_await db.read(hold);
    read_done = true;
  };
  auto aside = [&]() -> boost::asio::awaitable<void> {
    std::int64_t sessions = -1;
    auto count = [&](Transaction& tx) {
      sessions = tx.sessions().live_count(0);
      count_ran_on = std::this_thread::get_id();
    };
    StoreStatus status = co_await db.read_aside(count);
    EXPECT_EQ(status, StoreStatus::ok);
    EXPECT_EQ(sessions, 0);
    read_done_before_aside = read_done;
    aside_done = true;
    release.set_value();  // only now does the held read finish
  };
  boost::asio::co_spawn(held_loop, holder, boost::asio::detached);
  boost::asio::co_spawn(aside_loop, aside, boost::asio::detached);
  std::thread held_thread([&] { held_loop.run_for(std::chrono::seconds(30)); });
  aside_loop.run_for(std::chrono::seconds(20));
  held_thread.join();
  db.stop();
  EXPECT_TRUE(aside_done);
  EXPECT_FALSE(read_done_before_aside);
  EXPECT_TRUE(read_done);
  EXPECT_NE(count_ran_on, std::this_thread::get_id()) << "aside_loop runs on this thread";
}

}  // namespace
}  // namespace authd
