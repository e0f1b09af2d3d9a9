// store/sqlite: what is particular to the embedded store, in process, on a
// temporary file (interface.md 8.1 one file, created and migrated; 8.4
// versioned migrations; 5.3 expired sessions pruned). Every primitive of
// every area is tested on both backends by store_conformance_test.cpp.
#include <gtest/gtest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <set>
#include <stdexcept>
#include <string>
#include <thread>

#include "auth/login/throttle.hpp"
#include "crypto/random.hpp"
#include "store/migrations.hpp"
#include "store/pruning.hpp"
#include "store/sqlite/checkpointer.hpp"
#include "store/sqlite/connection.hpp"
#include "store/sqlite/sqlite_store.hpp"
#include "store/sqlite/transaction.hpp"
#include "temp_directory.hpp"

namespace authd {
namespace {

namespace fs = std::filesystem;

class SqliteStoreTest : public ::testing::Test {
 protected:
  static UserRecord user(std::string email, Millis at = 1'000) {
    UserRecord u;
    u.id = new_uuid_v7(at);
    u.email = std::move(email);
    u.password_hash = "$argon2id$v=19$m=64,t=1,p=1$c2FsdA$aGFzaA";
    u.created_at = at;
    u.updated_at = at;
    return u;
  }

  static SessionRecord session(const std::string& user_id, std::string_view token, Millis expires) {
    return SessionRecord{sha256(token), user_id, 0, expires};
  }

  test::TempDirectory dir_;
  std::string path_ = dir_.file("authd.db");
};

// interface.md 8.4: migrations are versioned; running them again changes nothing.
TEST_F(SqliteStoreTest, MigrateIsIdempotentAndReturnsTheVersion) {
  sqlite::SqliteStore store(path_);
  int version = store.migrate();
  EXPECT_GE(version, 1);
  EXPECT_EQ(store.migrate(), version);
  EXPECT_TRUE(store.healthy());

  // A second store on the same file sees the same version and the data.
  ASSERT_EQ(store.run(Store::Mode::write,
                      [](Transaction& tx) { ASSERT_TRUE(tx.users().insert(user("a@b.c"))); }),
            StoreStatus::ok);
  sqlite::SqliteStore reopened(path_);
  EXPECT_EQ(reopened.migrate(), version);
  bool found = false;
  ASSERT_EQ(
      reopened.run(Store::Mode::read,
                   [&](Transaction& tx) { found = tx.users().by_email("a@b.c").has_value(); }),
      StoreStatus::ok);
  EXPECT_TRUE(found);
}

// A database migrated by a newer release is refused, not misread (an
// older binary would, for one, accept tokens that were logged out).
TEST_F(SqliteStoreTest, ASchemaNewerThanTheBinaryIsRefused) {
  {
    sqlite::SqliteStore store(path_);
    store.migrate();
  }
  {
    sqlite::Connection newer(path_);
    newer.execute("INSERT INTO schema_migrations VALUES (999, 'from the future', 0)");
  }
  sqlite::SqliteStore store(path_);
  try {
    store.migrate();
    ADD_FAILURE() << "migrate() accepted schema version 999";
  } catch (const StoreError& e) {
    EXPECT_NE(std::string(e.what()).find("newer than this authd"), std::string::npos) << e.what();
  }
}

// docs/design/threat-model/secrets-and-data.md#database-leak: the database file
// is created 0600, even under a permissive umask; so are its WAL companions.
TEST_F(SqliteStoreTest, DatabaseFileIsCreatedWithMode0600) {
  struct UmaskGuard {
    mode_t previous = ::umask(0);
    ~UmaskGuard() { ::umask(previous); }
  } permissive;
  {
    sqlite::SqliteStore store(path_);
    store.migrate();
    ASSERT_EQ(
        store.run(Store::Mode::write, [](Transaction& tx) { tx.users().insert(user("a@b.c")); }),
        StoreStatus::ok);
    for (const std::string& file : {path_, path_ + "-wal", path_ + "-shm"}) {
      struct stat st {};
      if (file != path_ && ::stat(file.c_str(), &st) != 0)
        continue;  // WAL may be checkpointed away
      ASSERT_EQ(::stat(file.c_str(), &st), 0) << file;
      EXPECT_EQ(st.st_mode & 0777, 0600u) << file;
    }
  }
}

// interface.md 6 /forgot 5: /forgot reads both mail limits of an address in
// one read (check_throttles); the verdicts are those of one read per limit,
// at every moment of a history that crosses both limits.
TEST_F(SqliteStoreTest, Interface_6_Forgot_5_BothMailLimitsFromOneReadAsFromTwo) {
  sqlite::SqliteStore store(path_);
  store.migrate();
  const RateLimit short_term{1, std::chrono::minutes(1)};
  const RateLimit long_term{5, std::chrono::hours(1)};
  constexpr Millis kMinute = 60'000;
  ASSERT_EQ(store.run(Store::Mode::write,
                      [](Transaction& tx) {
                        for (Millis at : {1, 7, 8, 20, 21, 22, 50, 59, 61, 62})
                          tx.throttle().insert_event("mail:reset:a@b.c", at * kMinute);
                      }),
            StoreStatus::ok);
  for (Millis now = 0; now <= 130 * kMinute; now += kMinute / 4) {
    ASSERT_EQ(
        store.run(Store::Mode::read,
                  [&](Transaction& tx) {
                    auto [one, other] =
                        check_throttles(tx, "mail:reset:a@b.c", now, short_term, long_term);
                    ThrottleVerdict first = check_throttle(tx, "mail:reset:a@b.c", now, short_term);
                    ThrottleVerdict second = check_throttle(tx, "mail:reset:a@b.c", now, long_term);
                    EXPECT_EQ(one.allowed, first.allowed) << now;
                    EXPECT_EQ(one.retry_after, first.retry_after) << now;
                    EXPECT_EQ(other.allowed, second.allowed) << now;
                    EXPECT_EQ(other.retry_after, second.retry_after) << now;
                  }),
        StoreStatus::ok);
  }
}

// The throttle read walks the (key, at) index backwards and stops after its
// LIMIT: no temporary b-tree to sort, no visit of the table's rows (the
// statement is the store's, sqlite_store.cpp).
TEST_F(SqliteStoreTest, EventTimesReadsTheKeyIndexBackwardsWithoutSorting) {
  sqlite::SqliteStore store(path_);
  store.migrate();
  sqlite::Connection connection(path_);
  auto st = connection.prepare(
      "EXPLAIN QUERY PLAN "
      "SELECT at FROM throttle_events WHERE key = ?1 AND at > ?2 ORDER BY at DESC LIMIT ?3");
  st.bind(1, "k").bind(2, std::int64_t{0}).bind(3, std::int64_t{10});
  std::string plan;
  while (st.step()) plan += st.text(3) + "\n";
  EXPECT_NE(plan.find("USING COVERING INDEX throttle_events_by_key (key=? AND at>?)"),
            std::string::npos)
      << plan;
  EXPECT_EQ(plan.find("TEMP B-TREE"), std::string::npos) << plan;
}

// interface.md 14.2 on SQLite: the indexed part of a page by account or by
// type walks its index table's key backwards, reads each event by its seq
// and stops after its LIMIT (the statements are the store's own,
// sqlite/events.cpp).
TEST_F(SqliteStoreTest, IndexedEventsAreReadThroughTheirIndexTablesWithoutSorting) {
  sqlite::SqliteStore store(path_);
  store.migrate();
  sqlite::Connection connection(path_);
  auto plan_of = [&](const char* sql, const char* index) {
    auto st = connection.prepare((std::string("EXPLAIN QUERY PLAN ") + sql).c_str());
    std::string plan;
    while (st.step()) plan += st.text(3) + "\n";
    EXPECT_NE(plan.find(std::string("SEARCH ") + index + " USING PRIMARY KEY"), std::string::npos)
        << plan;
    EXPECT_NE(plan.find("SEARCH events USING INTEGER PRIMARY KEY (rowid=?)"), std::string::npos)
        << plan;
    EXPECT_EQ(plan.find("TEMP B-TREE"), std::string::npos) << plan;
  };
  plan_of(sqlite::Events::kIndexedByUser, "events_by_user");
  plan_of(sqlite::Events::kIndexedByType, "events_by_type");
}

// interface.md 5.3 on SQLite: expired sessions are pruned; live ones stay,
// and so does a logged-out one until its expiry (SQLite marks a revoked
// session; the conformance suite pins what both backends share).
TEST_F(SqliteStoreTest, PruneRemovesExpiredSessions) {
  sqlite::SqliteStore store(path_);
  store.migrate();
  UserRecord u = user("alice@example.com");
  ASSERT_EQ(store.run(Store::Mode::write,
                      [&](Transaction& tx) {
                        tx.users().insert(u);
                        tx.sessions().insert(session(u.id, "expired", 1'000));
                        tx.sessions().insert(session(u.id, "just-expired", 5'000));
                        tx.sessions().insert(session(u.id, "live", 5'001));
                        tx.sessions().insert(session(u.id, "logged-out", 9'000));
                        tx.sessions().revoke(sha256("logged-out"), 2'000);
                        tx.throttle().insert_event("login:email:alice@example.com", 100);
                        tx.throttle().insert_event("login:email:alice@example.com", 4'000);
                      }),
            StoreStatus::ok);

  std::int64_t removed = 0;
  ASSERT_EQ(
      store.run(
          Store::Mode::write,
          [&](Transaction& tx) {
            removed =
                PrunePass({.now = 5'000, .throttle = 100, .sent_mail = 0, .audit = 0}).run(tx);
          }),
      StoreStatus::ok);
  EXPECT_EQ(removed, 3);  // two sessions, one event: not the logged-out one

  bool expired = true, just_expired = true, live = false;
  std::size_t events = 0;
  ASSERT_EQ(
      store.run(Store::Mode::read,
                [&](Transaction& tx) {
                  expired = tx.sessions().user_of(sha256("expired")).has_value();
                  just_expired = tx.sessions().user_of(sha256("just-expired")).has_value();
                  live = tx.sessions().user_of(sha256("live")).has_value();
                  events =
                      tx.throttle().event_times("login:email:alice@example.com", 0, 100).size();
                }),
      StoreStatus::ok);
  EXPECT_FALSE(expired);
  EXPECT_FALSE(just_expired);
  EXPECT_TRUE(live);
  EXPECT_EQ(events, 1u);

  std::int64_t removed_later = 0;
  ASSERT_EQ(store.run(Store::Mode::write,
                      [&](Transaction& tx) {
                        removed_later = PrunePass({9'000, 0, 0, 0}).run(tx);
                      }),
            StoreStatus::ok);
  EXPECT_EQ(removed_later, 2);  // "live" and "logged-out", both expired by now
}

// Migration 2 on a database of the previous release: its sessions stay
// live, and log out like new ones.
TEST_F(SqliteStoreTest, SessionsOfTheFirstSchemaSurviveMigrationTwo) {
  {
    sqlite::Connection first(path_);
    first.execute(migrations()[0].sqlite_sql);
    first.execute(
        "CREATE TABLE schema_migrations ("
        " version INTEGER PRIMARY KEY, description TEXT NOT NULL, applied_at INTEGER NOT NULL);"
        "INSERT INTO schema_migrations VALUES (1, 'first', 0);"
        "INSERT INTO users (id, email, created_at, updated_at) VALUES ('u1', 'a@b.c', 0, 0);");
    auto st = first.prepare(
        "INSERT INTO sessions (token_digest, user_id, created_at, expires_at) "
        "VALUES (?1, 'u1', 0, 9000)");
    st.bind(1, sha256("old"));
    st.run();
  }
  sqlite::SqliteStore store(path_);
  EXPECT_EQ(store.migrate(), migrations().back().version);
  bool found = false, revoked = false, found_after = true;
  ASSERT_EQ(store.run(Store::Mode::write,
                      [&](Transaction& tx) {
                        found = tx.sessions().user_of(sha256("old")).has_value();
                        revoked = tx.sessions().revoke(sha256("old"), 1'000);
                        found_after = tx.sessions().user_of(sha256("old")).has_value();
                      }),
            StoreStatus::ok);
  EXPECT_TRUE(found);
  EXPECT_TRUE(revoked);
  EXPECT_FALSE(found_after);
}

// Migration 3 fills the set from the hashes already stored, reading the
// kind as password_hash_kind() does: only well-formed argon2 PHC strings,
// each kind once, no salt.
TEST_F(SqliteStoreTest, Interface_10_5_MigrationThreeFillsTheKindsOfStoredHashes) {
  {
    sqlite::Connection old(path_);
    old.execute(migrations()[0].sqlite_sql);
    old.execute(migrations()[1].sqlite_sql);
    old.execute(
        "CREATE TABLE schema_migrations ("
        " version INTEGER PRIMARY KEY, description TEXT NOT NULL, applied_at INTEGER NOT NULL);"
        "INSERT INTO schema_migrations VALUES (1, 'first', 0), (2, 'second', 0);"
        "INSERT INTO users (id, email, password_hash, created_at, updated_at) VALUES "
        "('u1', 'a@b.c', '$argon2id$v=19$m=19456,t=2,p=1$c2FsdHNhbHQ$aGFzaA', 0, 0),"
        "('u2', 'b@b.c', '$argon2id$v=19$m=19456,t=2,p=1$b3RoZXI$aGFzaDI', 0, 0),"
        "('u3', 'c@b.c', '$argon2i$v=19$m=4096,t=3,p=1$c2FsdA$aGFzaA', 0, 0),"
        "('u4', 'd@b.c', NULL, 0, 0),"
        "('u5', 'e@b.c', '$argon2id$v=19$m=64,t=1,p=1', 0, 0),"
        "('u6', 'f@b.c', '$argon2id$v=19$m=64,t=1,p=1,x=2$c2FsdA$aA', 0, 0),"
        "('u7', 'g@b.c', '$argon2d$v=16$m=8,t=1,p=4$c2FsdA$aA', 0, 0),"
        "('u8', 'h@b.c', '$ARGON2ID$v=19$m=64,t=1,p=1$c2FsdA$aA', 0, 0);");
  }
  sqlite::SqliteStore store(path_);
  EXPECT_EQ(store.migrate(), migrations().back().version);
  std::vector<std::string> kinds;
  ASSERT_EQ(store.run(Store::Mode::read,
                      [&](Transaction& tx) { kinds = tx.users().password_hash_kinds(); }),
            StoreStatus::ok);
  EXPECT_EQ(kinds,
            (std::vector<std::string>{"$argon2d$v=16$m=8,t=1,p=4", "$argon2i$v=19$m=4096,t=3,p=1",
                                      "$argon2id$v=19$m=19456,t=2,p=1"}));
}

// Migration 4 gives every session already stored a public id of its own,
// a version 4 UUID, and leaves its origin null (interface.md 11.2).
TEST_F(SqliteStoreTest, Interface_11_2_MigrationFourGivesExistingSessionsIdsOfTheirOwn) {
  {
    sqlite::Connection old(path_);
    old.execute(migrations()[0].sqlite_sql);
    old.execute(migrations()[1].sqlite_sql);
    old.execute(migrations()[2].sqlite_sql);
    old.execute(
        "CREATE TABLE schema_migrations ("
        " version INTEGER PRIMARY KEY, description TEXT NOT NULL, applied_at INTEGER NOT NULL);"
        "INSERT INTO schema_migrations VALUES (1, 'first', 0), (2, 'second', 0), (3, 'third', 0);"
        "INSERT INTO users (id, email, created_at, updated_at) VALUES ('u1', 'a@b.c', 0, 0);"
        "INSERT INTO sessions (token_digest, user_id, created_at, expires_at) VALUES "
        "(randomblob(32), 'u1', 1, 9000000000000), (randomblob(32), 'u1', 2, 9000000000000),"
        "(randomblob(32), 'u1', 3, 9000000000000);");
  }
  sqlite::SqliteStore store(path_);
  EXPECT_EQ(store.migrate(), migrations().back().version);
  std::vector<SessionRecord> sessions;
  ASSERT_EQ(
      store.run(Store::Mode::read,
                [&](Transaction& tx) { sessions = tx.sessions().list_live_of_user("u1", 0); }),
      StoreStatus::ok);
  ASSERT_EQ(sessions.size(), 3u);
  std::set<std::string> ids;
  for (const SessionRecord& s : sessions) {
    EXPECT_TRUE(is_canonical_uuid(s.public_id)) << s.public_id;
    EXPECT_EQ(s.public_id[14], '4') << s.public_id;
    EXPECT_NE(std::string("89ab").find(s.public_id[19]), std::string::npos) << s.public_id;
    EXPECT_EQ(s.client_address, std::nullopt);
    EXPECT_EQ(s.user_agent, std::nullopt);
    ids.insert(s.public_id);
  }
  EXPECT_EQ(ids.size(), 3u);
}

// Frames in the WAL file beside `db` (its 32-byte header, then frames of a
// 24-byte header and one page). The file is reused, not shrunk, after a
// checkpoint: this is its high-water mark.
std::uintmax_t wal_frames(const std::string& db) {
  std::error_code ec;
  std::uintmax_t size = fs::file_size(db + "-wal", ec);
  return ec || size < 32 ? 0 : (size - 32) / (24 + 4096);
}

// Inserts `count` sessions of `user_id` in one commit.
void insert_sessions(sqlite::SqliteStore& store, const std::string& user_id, int count) {
  ASSERT_EQ(store.run(Store::Mode::write,
                      [&](Transaction& tx) {
                        for (int i = 0; i < count; ++i)
                          tx.sessions().insert(SessionRecord{sha256(new_secret_token("t")), user_id,
                                                             0, 9'000'000'000'000});
                      }),
            StoreStatus::ok);
}

// Migrates the store's file and adds one user; returns the user's id.
std::string migrate_and_add_user(sqlite::SqliteStore& store) {
  store.migrate();
  UserRecord u;
  u.id = new_uuid_v7(1'000);
  u.email = "alice@example.com";
  u.created_at = u.updated_at = 1'000;
  EXPECT_EQ(store.run(Store::Mode::write, [&](Transaction& tx) { tx.users().insert(u); }),
            StoreStatus::ok);
  return u.id;
}

// interface.md 8.3 with group commit: a commit that takes the WAL past the
// checkpoint threshold returns without copying the WAL back into the
// database; the background checkpointer does it (checkpointer.hpp).
TEST_F(SqliteStoreTest, Interface_8_3_WalCheckpointRunsOffTheCommittingThread) {
  sqlite::SqliteStore store(path_);
  std::string user_id = migrate_and_add_user(store);
  // Past the background threshold, well short of the foreground one.
  // (Bounded: with SQLite's own checkpoint every 1,000 frames the WAL file
  // would never get there.)
  std::int64_t inserted = 0;
  for (int i = 0; i < 2000 && wal_frames(path_) < sqlite::CheckpointPolicy::kBackgroundFrames + 100;
       ++i) {
    insert_sessions(store, user_id, 50);
    inserted += 50;
  }
  ASSERT_GE(wal_frames(path_), sqlite::CheckpointPolicy::kBackgroundFrames + 100);
  ASSERT_LT(wal_frames(path_), sqlite::CheckpointPolicy::kForegroundFrames);

  for (int i = 0; i < 1000 && store.background_checkpoints() == 0; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  EXPECT_GE(store.background_checkpoints(), 1u);

  // Everything committed is there for a new store on the file.
  sqlite::SqliteStore reopened(path_);
  std::int64_t sessions = 0;
  ASSERT_EQ(reopened.run(Store::Mode::read,
                         [&](Transaction& tx) { sessions = tx.sessions().live_count(0); }),
            StoreStatus::ok);
  EXPECT_EQ(sessions, inserted);
}

// The WAL stays bounded while commits never pause: past the foreground
// threshold the committing connection checkpoints, as SQLite would.
TEST_F(SqliteStoreTest, WalStaysBoundedUnderContinuousCommits) {
  sqlite::SqliteStore store(path_);
  std::string user_id = migrate_and_add_user(store);
  std::uintmax_t highest = 0;
  for (int i = 0; i < 300; ++i) {
    insert_sessions(store, user_id, 100);
    highest = std::max(highest, wal_frames(path_));
  }
  EXPECT_LE(highest, 2u * sqlite::CheckpointPolicy::kForegroundFrames);
}

using Action = sqlite::CheckpointPolicy::Action;
constexpr int kStep = sqlite::CheckpointPolicy::kBackgroundFrames;
constexpr int kRewind = sqlite::CheckpointPolicy::kRewindFrames;
constexpr int kSmall = sqlite::CheckpointPolicy::kSmallRemainder;
constexpr int kForeground = sqlite::CheckpointPolicy::kForegroundFrames;

// Below the rewind mark a background checkpoint is asked for once every
// kBackgroundFrames new frames, not after every commit past the first mark
// (each would copy a few pages and fsync the database once more).
TEST(CheckpointPolicy, BackgroundOncePerStepOfNewFrames) {
  sqlite::CheckpointPolicy policy;
  EXPECT_EQ(policy.after_commit(100, 0, false), Action::none);
  EXPECT_EQ(policy.after_commit(kStep - 1, 0, false), Action::none);
  EXPECT_EQ(policy.after_commit(kStep + 30, 0, false), Action::background);
  EXPECT_EQ(policy.after_commit(kStep + 60, kStep + 30, false), Action::none);
  EXPECT_EQ(policy.after_commit(2 * kStep + 29, kStep + 30, false), Action::none);
  EXPECT_EQ(policy.after_commit(2 * kStep + 30, kStep + 30, false), Action::background);
}

// Past the rewind mark every commit asks for a background checkpoint, until
// what is left to copy is small and the background thread idle: then the
// committing connection copies the rest, so that its next transaction can
// rewind the WAL.
TEST(CheckpointPolicy, PastTheRewindMarkASmallRestIsCopiedByTheCommitter) {
  sqlite::CheckpointPolicy policy;
  EXPECT_EQ(policy.after_commit(kRewind, kRewind - 4000, false), Action::background);
  EXPECT_EQ(policy.after_commit(kRewind + 20, kRewind - 4000, false), Action::background);
  EXPECT_EQ(policy.after_commit(kRewind + 40, kRewind + 40 - kSmall, true), Action::background)
      << "the background thread is still copying";
  EXPECT_EQ(policy.after_commit(kRewind + 60, kRewind + 60 - kSmall, false), Action::foreground);
  EXPECT_EQ(policy.after_commit(kRewind + 80, kRewind + 80 - kSmall - 1, false),
            Action::background);
}

// Past the foreground mark the committer checkpoints whatever is left.
TEST(CheckpointPolicy, PastTheForegroundMarkTheCommitterAlwaysCopies) {
  sqlite::CheckpointPolicy policy;
  EXPECT_EQ(policy.after_commit(kForeground, 0, true), Action::foreground);
  EXPECT_EQ(policy.after_commit(kForeground + 500, 0, false), Action::foreground);
}

// Once the WAL is rewound the steps count from the start again, and a copy
// count from before the rewind (larger than the WAL) says nothing of the rest.
TEST(CheckpointPolicy, ARewoundWalCountsAgain) {
  sqlite::CheckpointPolicy policy;
  EXPECT_EQ(policy.after_commit(2 * kStep, 0, false), Action::background);
  EXPECT_EQ(policy.after_commit(50, 2 * kStep, false), Action::none);
  EXPECT_EQ(policy.after_commit(kStep, 2 * kStep, false), Action::background)
      << "without the rewind, the next step would be at 3 x kStep";
  EXPECT_EQ(policy.after_commit(kRewind, kForeground, false), Action::background);
}

}  // namespace
}  // namespace authd
