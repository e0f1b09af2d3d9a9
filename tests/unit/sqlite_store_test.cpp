// store/sqlite: the embedded store in process, on a temporary file
// (interface.md 8.1 one file, created and migrated; 8.4 versioned
// migrations; 5.3 expired sessions pruned; 6 /forgot 4 each mail sent once).
#include <gtest/gtest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <thread>

#include "auth/throttle.hpp"
#include "crypto/random.hpp"
#include "store/migrations.hpp"
#include "store/sqlite/checkpointer.hpp"
#include "store/sqlite/connection.hpp"
#include "store/sqlite/sqlite_store.hpp"
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
                      [](Transaction& tx) { ASSERT_TRUE(tx.insert_user(user("a@b.c"))); }),
            StoreStatus::ok);
  sqlite::SqliteStore reopened(path_);
  EXPECT_EQ(reopened.migrate(), version);
  bool found = false;
  ASSERT_EQ(reopened.run(Store::Mode::read,
                         [&](Transaction& tx) { found = tx.user_by_email("a@b.c").has_value(); }),
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

// ENGINEERING.md security habits: the database file is created 0600, even
// under a permissive umask; so are its WAL companions.
TEST_F(SqliteStoreTest, DatabaseFileIsCreatedWithMode0600) {
  struct UmaskGuard {
    mode_t previous = ::umask(0);
    ~UmaskGuard() { ::umask(previous); }
  } permissive;
  {
    sqlite::SqliteStore store(path_);
    store.migrate();
    ASSERT_EQ(store.run(Store::Mode::write, [](Transaction& tx) { tx.insert_user(user("a@b.c")); }),
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

// Store::run: a transaction whose work throws rolls back as a whole.
TEST_F(SqliteStoreTest, ThrowingTransactionRollsBack) {
  sqlite::SqliteStore store(path_);
  store.migrate();

  // A StoreError becomes a status...
  StoreStatus status = store.run(Store::Mode::write, [](Transaction& tx) {
    tx.insert_user(user("first@b.c"));
    tx.insert_event("login:email:first@b.c", 5);
    throw StoreError("simulated failure");
  });
  EXPECT_EQ(status, StoreStatus::failed);

  // ...any other exception reaches the caller; both roll back.
  EXPECT_THROW(store.run(Store::Mode::write,
                         [](Transaction& tx) {
                           tx.insert_user(user("second@b.c"));
                           throw std::runtime_error("bug");
                         }),
               std::runtime_error);

  bool first = true, second = true;
  std::size_t events = 1;
  ASSERT_EQ(store.run(Store::Mode::read,
                      [&](Transaction& tx) {
                        first = tx.user_by_email("first@b.c").has_value();
                        second = tx.user_by_email("second@b.c").has_value();
                        events = tx.event_times("login:email:first@b.c", 0, 100).size();
                      }),
            StoreStatus::ok);
  EXPECT_FALSE(first);
  EXPECT_FALSE(second);
  EXPECT_EQ(events, 0u);

  // The store is still usable afterwards.
  ASSERT_EQ(store.run(Store::Mode::write,
                      [](Transaction& tx) { ASSERT_TRUE(tx.insert_user(user("first@b.c"))); }),
            StoreStatus::ok);
}

// interface.md 2.5 / 3.1: one account per canonical e-mail.
TEST_F(SqliteStoreTest, InsertUserIsFalseOnDuplicateEmail) {
  sqlite::SqliteStore store(path_);
  store.migrate();
  bool first = false, duplicate = true;
  ASSERT_EQ(store.run(Store::Mode::write,
                      [&](Transaction& tx) {
                        first = tx.insert_user(user("alice@example.com", 1));
                        duplicate = tx.insert_user(user("alice@example.com", 2));
                      }),
            StoreStatus::ok);
  EXPECT_TRUE(first);
  EXPECT_FALSE(duplicate);

  std::optional<UserRecord> stored;
  ASSERT_EQ(store.run(Store::Mode::read,
                      [&](Transaction& tx) { stored = tx.user_by_email("alice@example.com"); }),
            StoreStatus::ok);
  ASSERT_TRUE(stored.has_value());
  EXPECT_EQ(stored->created_at, 1);  // the first one stays
}

// interface.md 6 /forgot 4: a claimed mail is not handed to another worker
// while its lease runs, and is handed out again once it has run out.
TEST_F(SqliteStoreTest, ClaimDueMailRespectsTheLease) {
  sqlite::SqliteStore store(path_);
  store.migrate();
  UserRecord u = user("alice@example.com");
  ASSERT_EQ(
      store.run(
          Store::Mode::write,
          [&](Transaction& tx) {
            tx.insert_user(u);
            tx.enqueue_mail(OutboxRecord{0, "password_reset", u.id, u.email, 1'000, 0, 1'000});
            tx.enqueue_mail(OutboxRecord{0, "password_reset", u.id, u.email, 1'000, 0, 50'000});
          }),
      StoreStatus::ok);

  auto claim = [&](Millis now, Millis lease_until) {
    std::optional<OutboxRecord> mail;
    EXPECT_EQ(store.run(Store::Mode::write,
                        [&](Transaction& tx) { mail = tx.claim_due_mail(now, lease_until); }),
              StoreStatus::ok);
    return mail;
  };

  EXPECT_FALSE(claim(999, 10'000).has_value());  // not due yet
  auto first = claim(2'000, 10'000);
  ASSERT_TRUE(first.has_value());
  EXPECT_EQ(first->email, "alice@example.com");
  EXPECT_EQ(first->user_id, u.id);
  EXPECT_FALSE(claim(2'001, 20'000).has_value());  // leased, and the other is not due
  EXPECT_FALSE(claim(9'999, 20'000).has_value());
  auto again = claim(10'000, 20'000);  // lease over (a crashed worker): retried
  ASSERT_TRUE(again.has_value());
  EXPECT_EQ(again->id, first->id);

  // Marking sent needs the current lease: the first claim's lease ran out
  // and the mail was claimed again, so the first claimer cannot mark it.
  auto mark = [&](std::int64_t id, Millis at, Millis lease) {
    bool marked = false;
    EXPECT_EQ(store.run(Store::Mode::write,
                        [&](Transaction& tx) { marked = tx.mark_mail_sent(id, at, lease); }),
              StoreStatus::ok);
    return marked;
  };
  EXPECT_FALSE(mark(first->id, 10'500, 10'000));
  EXPECT_TRUE(mark(first->id, 10'500, 20'000));
  EXPECT_FALSE(mark(first->id, 10'600, 20'000)) << "marked once";

  // Sent mails are never claimed again; the second one comes when due.
  EXPECT_FALSE(claim(40'000, 50'000).has_value());
  auto second = claim(60'000, 70'000);
  ASSERT_TRUE(second.has_value());
  EXPECT_NE(second->id, first->id);

  // A rescheduled mail comes back at its next attempt time, with its count.
  ASSERT_EQ(
      store.run(Store::Mode::write,
                [&](Transaction& tx) { tx.reschedule_mail(second->id, 1, 80'000, "smtp: 451"); }),
      StoreStatus::ok);
  EXPECT_FALSE(claim(79'999, 90'000).has_value());
  auto retried = claim(80'000, 90'000);
  ASSERT_TRUE(retried.has_value());
  EXPECT_EQ(retried->id, second->id);
  EXPECT_EQ(retried->attempts, 1);
}

// Issue 19: a throttle check reads the newest `most` events of its key in
// the window, ascending, and nothing older, whatever else is stored.
TEST_F(SqliteStoreTest, Interface_6_Login_4_EventTimesAreTheNewestOnesOnly) {
  sqlite::SqliteStore store(path_);
  store.migrate();
  ASSERT_EQ(store.run(Store::Mode::write,
                      [](Transaction& tx) {
                        for (Millis at = 1; at <= 5'000; ++at) tx.insert_event("k", at);
                        tx.insert_event("other", 4'999);
                      }),
            StoreStatus::ok);
  std::vector<Millis> newest, few, none;
  ASSERT_EQ(store.run(Store::Mode::read,
                      [&](Transaction& tx) {
                        newest = tx.event_times("k", 0, 3);
                        few = tx.event_times("k", 4'998, 10);
                        none = tx.event_times("k", 5'000, 10);
                      }),
            StoreStatus::ok);
  EXPECT_EQ(newest, (std::vector<Millis>{4'998, 4'999, 5'000}));
  EXPECT_EQ(few, (std::vector<Millis>{4'999, 5'000}));
  EXPECT_TRUE(none.empty());
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
                          tx.insert_event("mail:reset:a@b.c", at * kMinute);
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

// interface.md 5.3: expired sessions are pruned; live ones stay, and so
// does a logged-out one until its expiry.
TEST_F(SqliteStoreTest, PruneRemovesExpiredSessions) {
  sqlite::SqliteStore store(path_);
  store.migrate();
  UserRecord u = user("alice@example.com");
  ASSERT_EQ(store.run(Store::Mode::write,
                      [&](Transaction& tx) {
                        tx.insert_user(u);
                        tx.insert_session(session(u.id, "expired", 1'000));
                        tx.insert_session(session(u.id, "just-expired", 5'000));
                        tx.insert_session(session(u.id, "live", 5'001));
                        tx.insert_session(session(u.id, "logged-out", 9'000));
                        tx.revoke_session(sha256("logged-out"), 2'000);
                        tx.insert_event("login:email:alice@example.com", 100);
                        tx.insert_event("login:email:alice@example.com", 4'000);
                      }),
            StoreStatus::ok);

  std::int64_t removed = 0;
  ASSERT_EQ(store.run(Store::Mode::write,
                      [&](Transaction& tx) {
                        removed =
                            tx.prune(/*now=*/5'000, /*event_horizon=*/100, /*sent_mail_horizon=*/0);
                      }),
            StoreStatus::ok);
  EXPECT_EQ(removed, 3);  // two sessions, one event: not the logged-out one

  bool expired = true, just_expired = true, live = false;
  std::size_t events = 0;
  ASSERT_EQ(store.run(Store::Mode::read,
                      [&](Transaction& tx) {
                        expired = tx.session_user(sha256("expired")).has_value();
                        just_expired = tx.session_user(sha256("just-expired")).has_value();
                        live = tx.session_user(sha256("live")).has_value();
                        events = tx.event_times("login:email:alice@example.com", 0, 100).size();
                      }),
            StoreStatus::ok);
  EXPECT_FALSE(expired);
  EXPECT_FALSE(just_expired);
  EXPECT_TRUE(live);
  EXPECT_EQ(events, 1u);

  std::int64_t removed_later = 0;
  ASSERT_EQ(store.run(Store::Mode::write,
                      [&](Transaction& tx) { removed_later = tx.prune(9'000, 0, 0); }),
            StoreStatus::ok);
  EXPECT_EQ(removed_later, 2);  // "live" and "logged-out", both expired by now
}

// interface.md 5.1 and 6 /logout 4: sessions are found by the digest only;
// a revoked one is never found again, nor revoked twice, and no longer
// counts as live.
TEST_F(SqliteStoreTest, SessionsAreKeyedByDigestAndRevokedOnce) {
  sqlite::SqliteStore store(path_);
  store.migrate();
  UserRecord u = user("alice@example.com");
  bool revoked_first = false, revoked_again = true;
  UserRecord bob = user("bob@example.com");
  std::optional<SessionUser> found, found_bob, found_after_revoke;
  std::int64_t live_before = 0, live_after = 0;
  ASSERT_EQ(store.run(Store::Mode::write,
                      [&](Transaction& tx) {
                        tx.insert_user(u);
                        tx.insert_session(session(u.id, "tok", 9'000));
                        tx.insert_user(bob);
                        tx.insert_session(session(bob.id, "other", 8'000));
                        found = tx.session_user(sha256("tok"));
                        found_bob = tx.session_user(sha256("other"));
                        live_before = tx.live_session_count(1'000);
                        revoked_first = tx.revoke_session(sha256("tok"), 1'000);
                        revoked_again = tx.revoke_session(sha256("tok"), 1'001);
                        found_after_revoke = tx.session_user(sha256("tok"));
                        live_after = tx.live_session_count(1'000);
                      }),
            StoreStatus::ok);
  ASSERT_TRUE(found.has_value());
  EXPECT_EQ(found->user.id, u.id);
  EXPECT_EQ(found->user.email, "alice@example.com");
  EXPECT_EQ(found->expires_at, 9'000);
  ASSERT_TRUE(found_bob.has_value());  // each session joins its own user
  EXPECT_EQ(found_bob->user.id, bob.id);
  EXPECT_EQ(found_bob->expires_at, 8'000);
  EXPECT_TRUE(revoked_first);
  EXPECT_FALSE(revoked_again);
  EXPECT_FALSE(found_after_revoke.has_value());
  EXPECT_EQ(live_before, 2);
  EXPECT_EQ(live_after, 1);
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
                        found = tx.session_user(sha256("old")).has_value();
                        revoked = tx.revoke_session(sha256("old"), 1'000);
                        found_after = tx.session_user(sha256("old")).has_value();
                      }),
            StoreStatus::ok);
  EXPECT_TRUE(found);
  EXPECT_TRUE(revoked);
  EXPECT_FALSE(found_after);
}

// interface.md 10.5 (issue 19): the store keeps the set of kinds of the
// hashes it holds, adding a kind whenever a write stores a hash, in the
// same transaction; never a salt or a digest.
TEST_F(SqliteStoreTest, Interface_10_5_EveryHashWriteRecordsItsKind) {
  sqlite::SqliteStore store(path_);
  store.migrate();
  UserRecord a = user("a@b.c");  // m=64,t=1
  UserRecord b = user("b@b.c");
  b.password_hash.reset();  // no password yet
  std::vector<std::string> kinds;
  auto read_kinds = [&] {
    EXPECT_EQ(
        store.run(Store::Mode::read, [&](Transaction& tx) { kinds = tx.password_hash_kinds(); }),
        StoreStatus::ok);
    return kinds;
  };
  ASSERT_EQ(store.run(Store::Mode::write,
                      [&](Transaction& tx) {
                        tx.insert_user(a);
                        tx.insert_user(b);
                        UserRecord taken = user("a@b.c");  // e-mail taken: not stored
                        taken.password_hash = "$argon2id$v=19$m=99,t=9,p=1$c2FsdA$aGFzaA";
                        EXPECT_FALSE(tx.insert_user(taken));
                      }),
            StoreStatus::ok);
  EXPECT_EQ(read_kinds(), std::vector<std::string>{"$argon2id$v=19$m=64,t=1,p=1"});
  ASSERT_EQ(store.run(Store::Mode::write,
                      [&](Transaction& tx) {
                        tx.replace_password_hash(a.id, "$argon2id$v=19$m=128,t=2,p=1$c2FsdA$aA");
                        b.password_hash = "$argon2i$v=19$m=4096,t=3,p=1$c2FsdA$aA";
                        tx.update_user(b);
                        tx.replace_password_hash(a.id, "not a hash authd can read");
                      }),
            StoreStatus::ok);
  EXPECT_EQ(read_kinds(), (std::vector<std::string>{"$argon2i$v=19$m=4096,t=3,p=1",
                                                    "$argon2id$v=19$m=128,t=2,p=1",
                                                    "$argon2id$v=19$m=64,t=1,p=1"}));
  // A write that is rolled back leaves no kind behind.
  EXPECT_EQ(store.run(Store::Mode::write,
                      [&](Transaction& tx) {
                        tx.replace_password_hash(a.id, "$argon2id$v=19$m=256,t=4,p=1$c2FsdA$aA");
                        throw StoreError("simulated failure");
                      }),
            StoreStatus::failed);
  EXPECT_EQ(read_kinds().size(), 3u);
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
  ASSERT_EQ(
      store.run(Store::Mode::read, [&](Transaction& tx) { kinds = tx.password_hash_kinds(); }),
      StoreStatus::ok);
  EXPECT_EQ(kinds,
            (std::vector<std::string>{"$argon2d$v=16$m=8,t=1,p=4", "$argon2i$v=19$m=4096,t=3,p=1",
                                      "$argon2id$v=19$m=19456,t=2,p=1"}));
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
                          tx.insert_session(SessionRecord{sha256(new_secret_token("t")), user_id, 0,
                                                          9'000'000'000'000});
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
  EXPECT_EQ(store.run(Store::Mode::write, [&](Transaction& tx) { tx.insert_user(u); }),
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
                         [&](Transaction& tx) { sessions = tx.live_session_count(0); }),
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

namespace authd {
namespace {

class ResetTokenStoreTest : public ::testing::Test {
 protected:
  test::TempDirectory dir_;
};

// interface.md 6 /forgot 3: reset tokens are stored only as digests, and a
// new one voids any older one of the same user.
TEST_F(ResetTokenStoreTest, NewResetTokenVoidsTheOlderOneAndIsFoundByDigest) {
  sqlite::SqliteStore store(dir_.file("authd.db"));
  store.migrate();
  UserRecord user;
  user.id = new_uuid_v7(1'000);
  user.email = "reset@example.com";
  user.created_at = user.updated_at = 1'000;
  ResetTokenRecord first{sha256("authdrt_first"), user.id, 1'000, 2'000};
  ResetTokenRecord second{sha256("authdrt_second"), user.id, 1'500, 2'500};
  ASSERT_EQ(store.run(Store::Mode::write,
                      [&](Transaction& tx) {
                        ASSERT_TRUE(tx.insert_user(user));
                        tx.replace_reset_token(first);
                        tx.replace_reset_token(second);
                      }),
            StoreStatus::ok);

  std::optional<ResetTokenRecord> old_token, new_token;
  ASSERT_EQ(store.run(Store::Mode::read,
                      [&](Transaction& tx) {
                        old_token = tx.reset_token_by_digest(first.token_digest);
                        new_token = tx.reset_token_by_digest(second.token_digest);
                      }),
            StoreStatus::ok);
  EXPECT_FALSE(old_token.has_value());
  ASSERT_TRUE(new_token.has_value());
  EXPECT_EQ(new_token->user_id, user.id);
  EXPECT_EQ(new_token->expires_at, 2'500);
}

}  // namespace
}  // namespace authd
