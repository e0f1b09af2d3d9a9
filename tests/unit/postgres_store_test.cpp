// store/postgres in process: what only shows with concurrent writers on one
// PostgreSQL database. Two PostgresStore objects stand for two authd
// instances. Skipped unless AUTHD_TEST_POSTGRES names a server
// (scripts/with-postgres.sh; scripts/test.sh runs them there).
// (interface.md 6 /login 4 exact limits, 6 /forgot 4 each mail sent once,
// 7.2 one reset per token, 8.2 several instances on one database.)
#include <gtest/gtest.h>
#include <libpq-fe.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <latch>
#include <mutex>
#include <set>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "crypto/random.hpp"
#include "postgres_test_database.hpp"
#include "store/migrations.hpp"
#include "store/postgres/postgres_store.hpp"

namespace authd {
namespace {

using namespace std::chrono_literals;

class PostgresStoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    AUTHD_SKIP_WITHOUT_POSTGRES();
    url_ = test::fresh_postgres_database();
    a_ = std::make_unique<postgres::PostgresStore>(url_, 8, 5s);
    b_ = std::make_unique<postgres::PostgresStore>(url_, 8, 5s);
    a_->migrate();
    b_->migrate();  // the second instance finds nothing to do
  }

  UserRecord add_user(const std::string& email) {
    UserRecord u;
    u.id = new_uuid_v7(1'000);
    u.email = email;
    u.password_hash = "$argon2id$v=19$m=64,t=1,p=1$c2FsdA$aGFzaA";
    u.created_at = u.updated_at = 1'000;
    EXPECT_EQ(
        a_->run(Store::Mode::write, [&](Transaction& tx) { EXPECT_TRUE(tx.users().insert(u)); }),
        StoreStatus::ok);
    return u;
  }

  // Live sessions of `user`, one per token.
  void add_live_sessions(const UserRecord& user, std::initializer_list<std::string_view> tokens) {
    Millis expires = now_millis() + 60'000;
    ASSERT_EQ(a_->run(Store::Mode::write,
                      [&](Transaction& tx) {
                        for (std::string_view token : tokens)
                          tx.sessions().insert({sha256(token), user.id, 1'000, expires});
                      }),
              StoreStatus::ok);
  }

  // Two live sessions of one user: `token`'s and another.
  void add_two_live_sessions(std::string_view token) {
    add_live_sessions(add_user("alice@example.com"), {token, "other"});
  }

  // Runs `works` as the units of one Store::run_together on `store` (a by
  // default), each naming the throttling keys of `keys` at its index.
  std::vector<TransactionUnit> run_together(std::vector<std::function<void(Transaction&)>>& works,
                                            const std::vector<std::vector<std::string>>& keys = {},
                                            Store* store = nullptr) {
    std::vector<TransactionUnit> units(works.size());
    for (std::size_t i = 0; i < units.size(); ++i) {
      units[i].work = &works[i];
      if (i < keys.size()) units[i].lock_keys = keys[i];
    }
    (store != nullptr ? *store : *a_).run_together(units);
    return units;
  }

  // The advisory locks held in this test's database.
  std::int64_t advisory_locks_held() {
    PGconn* raw = PQconnectdb(url_.c_str());
    PGresult* result =
        PQexec(raw,
               "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND granted"
               " AND database = (SELECT oid FROM pg_database"
               " WHERE datname = current_database())");
    std::int64_t held =
        PQresultStatus(result) == PGRES_TUPLES_OK ? std::stoll(PQgetvalue(result, 0, 0)) : -1;
    PQclear(result);
    PQfinish(raw);
    return held;
  }

  // Runs `hold` in a write transaction on store a and, while that
  // transaction is still open, reads the user `user_id` for update on
  // `other`; returns the second transaction's status.
  StoreStatus write_behind(const std::function<void(Transaction&)>& hold, Store& other,
                           const std::string& user_id) {
    std::latch locked(1);
    std::latch release(1);
    std::thread holder([&] {
      bool counted = false;
      a_->run(Store::Mode::write, [&](Transaction& tx) {
        hold(tx);
        locked.count_down();
        counted = true;
        release.wait();
      });
      if (!counted) locked.count_down();  // failed before: the test fails, not hangs
    });
    locked.wait();
    StoreStatus waited =
        other.run(Store::Mode::write, [&](Transaction& tx) { tx.users().by_id(user_id); });
    release.count_down();
    holder.join();
    return waited;
  }

  // A live reset token for `user`; its digest.
  Sha256Digest add_reset_token(const UserRecord& user, std::string_view token) {
    Sha256Digest digest = sha256(token);
    EXPECT_EQ(a_->run(Store::Mode::write,
                      [&](Transaction& tx) {
                        tx.reset_tokens().replace({digest, user.id, 1'000, now_millis() + 60'000});
                      }),
              StoreStatus::ok);
    return digest;
  }

  // Runs `each(store, i)` on `count` threads, half on each store, all
  // released at once.
  template <class Each>
  void race(int count, Each each) {
    std::latch start(count);
    std::vector<std::thread> threads;
    threads.reserve(static_cast<std::size_t>(count));
    for (int i = 0; i < count; ++i) {
      threads.emplace_back([&, i] {
        Store& store = i % 2 == 0 ? *a_ : *b_;
        start.arrive_and_wait();
        each(store, i);
      });
    }
    for (auto& thread : threads) thread.join();
  }

  // 16 writers, half on each store, all at once: each counts `key`'s events
  // and, under 10, adds one with `add`. Returns how many were let through
  // and how many events were stored (a limit of 10 holds when both are 10).
  template <class Add>
  std::pair<int, std::size_t> race_to_a_limit_of_ten(const std::string& key, Add add) {
    std::atomic<int> allowed{0};
    race(16, [&](Store& store, int) {
      StoreStatus status = store.run(Store::Mode::write, [&](Transaction& tx) {
        if (tx.throttle().event_times(key, 0, 100).size() >= 10) return;
        add(tx, key);
        ++allowed;
      });
      EXPECT_EQ(status, StoreStatus::ok);
    });
    std::size_t stored = 0;
    a_->run(Store::Mode::read,
            [&](Transaction& tx) { stored = tx.throttle().event_times(key, 0, 100).size(); });
    return {allowed.load(), stored};
  }

  std::string url_;
  std::unique_ptr<postgres::PostgresStore> a_;
  std::unique_ptr<postgres::PostgresStore> b_;
};

// 8.4 on PostgreSQL: one schema version, whichever instance migrated.
TEST_F(PostgresStoreTest, Interface_8_4_MigrationsRunOnceAcrossInstances) {
  const int latest = migrations().back().version;
  EXPECT_EQ(a_->migrate(), latest);
  EXPECT_EQ(b_->migrate(), latest);
  EXPECT_TRUE(a_->healthy());
}

// 6 /logout 4 on PostgreSQL: a revoked session is found by neither
// instance, cannot be revoked twice, and no longer counts as live.
TEST_F(PostgresStoreTest, Interface_6_Logout_4_ARevokedSessionIsGoneForEveryInstance) {
  add_two_live_sessions("tok");
  bool revoked_first = false, revoked_again = true, found_by_b = true;
  std::int64_t live = 0;
  ASSERT_EQ(
      a_->run(Store::Mode::write,
              [&](Transaction& tx) { revoked_first = tx.sessions().revoke(sha256("tok"), 2'000); }),
      StoreStatus::ok);
  ASSERT_EQ(b_->run(Store::Mode::write,
                    [&](Transaction& tx) {
                      found_by_b = tx.sessions().user_of(sha256("tok")).has_value();
                      revoked_again = tx.sessions().revoke(sha256("tok"), 3'000);
                      live = tx.sessions().live_count(2'000);
                    }),
            StoreStatus::ok);
  EXPECT_TRUE(revoked_first);
  EXPECT_FALSE(found_by_b);
  EXPECT_FALSE(revoked_again);
  EXPECT_EQ(live, 1);
}

// GET /me's lookup reads the session's user and expiry in one statement;
// in a write transaction (logout) it holds the user's row like user_by_id,
// so a concurrent writer of that user waits for it.
TEST_F(PostgresStoreTest, SessionUserReadsTheUserAndLocksItInAWrite) {
  add_two_live_sessions("mine");
  std::optional<SessionUser> found;
  ASSERT_EQ(b_->run(Store::Mode::read,
                    [&](Transaction& tx) { found = tx.sessions().user_of(sha256("mine")); }),
            StoreStatus::ok);
  ASSERT_TRUE(found.has_value());
  EXPECT_EQ(found->user.email, "alice@example.com");
  EXPECT_GT(found->expires_at, now_millis());

  postgres::PostgresStore impatient(url_, 2, 300ms);
  auto hold = [](Transaction& tx) { tx.sessions().user_of(sha256("mine")); };
  EXPECT_EQ(write_behind(hold, impatient, found->user.id), StoreStatus::unavailable);
}

// The same rule for a row marked revoked, as SQLite's logout leaves it and
// as a later release may on PostgreSQL: never found, not live.
TEST_F(PostgresStoreTest, AMarkedSessionIsNeitherFoundNorLive) {
  add_two_live_sessions("marked");
  PGconn* raw = PQconnectdb(url_.c_str());
  PGresult* marked = PQexec(raw,
                            "UPDATE sessions SET revoked_at = 2000 WHERE token_digest = "
                            "sha256(convert_to('marked', 'UTF8'))");
  ASSERT_EQ(PQresultStatus(marked), PGRES_COMMAND_OK) << PQerrorMessage(raw);
  EXPECT_STREQ(PQcmdTuples(marked), "1");
  PQclear(marked);
  PQfinish(raw);

  bool found = true;
  std::int64_t live = 0;
  ASSERT_EQ(b_->run(Store::Mode::read,
                    [&](Transaction& tx) {
                      found = tx.sessions().user_of(sha256("marked")).has_value();
                      live = tx.sessions().live_count(2'000);
                    }),
            StoreStatus::ok);
  EXPECT_FALSE(found);
  EXPECT_EQ(live, 1);
}

// 6 /login 4: a limit of 10 holds exactly when 16 instances' worth of
// transactions count and add at the same moment (the advisory lock on the
// key; without it several would see 9 and all add).
TEST_F(PostgresStoreTest, Interface_6_Login_4_ThrottleCountIsExactUnderConcurrentWriters) {
  auto [allowed, stored] = race_to_a_limit_of_ten("login:email:a@example.com",
                                                  [](Transaction& tx, const std::string& key) {
                                                    tx.throttle().insert_event(key, now_millis());
                                                  });
  EXPECT_EQ(allowed, 10);
  EXPECT_EQ(stored, 10u);
}

// interface.md 6 /forgot 5: the same for a counted request, whose lock is
// sent ahead with its count and whose event is sent ahead with what
// follows: a limit of 10 still holds exactly.
TEST_F(PostgresStoreTest,
       Interface_6_Forgot_5_CountWithItsLockAndEventSentAheadIsExactUnderConcurrentWriters) {
  auto [allowed, stored] = race_to_a_limit_of_ten(
      "forgot:client:192.0.2.1",
      [](Transaction& tx, const std::string& key) { tx.throttle().add_event(key, now_millis()); });
  EXPECT_EQ(allowed, 10);
  EXPECT_EQ(stored, 10u);
}

// A throttle key's lock, sent ahead with the count, that waits past the
// store's deadline makes the transaction unavailable (not a count of
// zero), and the connection serves the next one once the key is free.
TEST_F(PostgresStoreTest, ThrottleLockSentAheadPastTheDeadlineIsUnavailableThenTheStoreRecovers) {
  postgres::PostgresStore impatient(url_, 1, 300ms);
  PGconn* holder = PQconnectdb(url_.c_str());
  PQclear(PQexec(holder, "SELECT pg_advisory_lock(hashtextextended('forgot:client:held', 0))"));
  bool counted = false;
  EXPECT_EQ(impatient.run(Store::Mode::write,
                          [&](Transaction& tx) {
                            tx.throttle().event_times("forgot:client:held", 0, 10);
                            counted = true;
                          }),
            StoreStatus::unavailable);
  EXPECT_FALSE(counted);
  PQclear(PQexec(holder, "SELECT pg_advisory_unlock_all()"));
  PQfinish(holder);
  std::vector<Millis> times{1};
  EXPECT_EQ(impatient.run(Store::Mode::write,
                          [&](Transaction& tx) {
                            times = tx.throttle().event_times("forgot:client:held", 0, 10);
                          }),
            StoreStatus::ok);
  EXPECT_TRUE(times.empty());
}

// interface.md 10.5: each instance's hash writes add their kind
// to the one set both read; a kind both add at once is stored once.
TEST_F(PostgresStoreTest, Interface_10_5_HashWritesOfEveryInstanceRecordTheirKinds) {
  UserRecord u = add_user("alice@example.com");  // m=64,t=1, through instance a
  race(8, [&](Store& store, int i) {
    StoreStatus status = store.run(Store::Mode::write, [&](Transaction& tx) {
      tx.users().replace_password_hash(u.id, i % 2 == 0 ? "$argon2id$v=19$m=128,t=2,p=1$c2FsdA$aA"
                                                        : "$argon2i$v=19$m=4096,t=3,p=1$c2FsdA$aA");
    });
    EXPECT_EQ(status, StoreStatus::ok);
  });
  std::vector<std::string> kinds;
  ASSERT_EQ(b_->run(Store::Mode::read,
                    [&](Transaction& tx) { kinds = tx.users().password_hash_kinds(); }),
            StoreStatus::ok);
  EXPECT_EQ(kinds, (std::vector<std::string>{"$argon2i$v=19$m=4096,t=3,p=1",
                                             "$argon2id$v=19$m=128,t=2,p=1",
                                             "$argon2id$v=19$m=64,t=1,p=1"}));
}

// Migration 3 on PostgreSQL fills the set as the SQLite one does (the same
// cases as SqliteStoreTest.Interface_10_5_MigrationThreeFillsTheKindsOfStoredHashes).
TEST(PostgresMigration, Interface_10_5_MigrationThreeFillsTheKindsOfStoredHashes) {
  AUTHD_SKIP_WITHOUT_POSTGRES();
  std::string url = test::fresh_postgres_database();
  PGconn* raw = PQconnectdb(url.c_str());
  std::string old_schema =
      std::string(migrations()[0].postgres_sql) + migrations()[1].postgres_sql +
      "CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, "
      "description TEXT NOT NULL, applied_at BIGINT NOT NULL);"
      "INSERT INTO schema_migrations VALUES (1, 'first', 0), (2, 'second', 0);"
      "INSERT INTO users (id, email, password_hash, created_at, updated_at) "
      "VALUES "
      "('u1', 'a@b.c', '$argon2id$v=19$m=19456,t=2,p=1$c2FsdHNhbHQ$aGFzaA', 0, 0),"
      "('u2', 'b@b.c', '$argon2id$v=19$m=19456,t=2,p=1$b3RoZXI$aGFzaDI', 0, 0),"
      "('u3', 'c@b.c', '$argon2i$v=19$m=4096,t=3,p=1$c2FsdA$aGFzaA', 0, 0),"
      "('u4', 'd@b.c', NULL, 0, 0),"
      "('u5', 'e@b.c', '$argon2id$v=19$m=64,t=1,p=1', 0, 0),"
      "('u6', 'f@b.c', '$argon2id$v=19$m=64,t=1,p=1,x=2$c2FsdA$aA', 0, 0),"
      "('u7', 'g@b.c', '$argon2d$v=16$m=8,t=1,p=4$c2FsdA$aA', 0, 0),"
      "('u8', 'h@b.c', '$ARGON2ID$v=19$m=64,t=1,p=1$c2FsdA$aA', 0, 0);";
  PGresult* created = PQexec(raw, old_schema.c_str());
  ASSERT_EQ(PQresultStatus(created), PGRES_COMMAND_OK) << PQerrorMessage(raw);
  PQclear(created);
  PQfinish(raw);
  postgres::PostgresStore store(url, 2, 5s);
  EXPECT_EQ(store.migrate(), migrations().back().version);
  std::vector<std::string> kinds;
  ASSERT_EQ(store.run(Store::Mode::read,
                      [&](Transaction& tx) { kinds = tx.users().password_hash_kinds(); }),
            StoreStatus::ok);
  EXPECT_EQ(kinds,
            (std::vector<std::string>{"$argon2d$v=16$m=8,t=1,p=4", "$argon2i$v=19$m=4096,t=3,p=1",
                                      "$argon2id$v=19$m=19456,t=2,p=1"}));
}

// Migration 4 on PostgreSQL gives every session already stored an id of its
// own, and so does its default to a session that an instance of the
// previous release inserts without the new columns (a rolling upgrade).
TEST(PostgresMigration, Interface_11_2_MigrationFourGivesOldAndOldStyleSessionsIds) {
  AUTHD_SKIP_WITHOUT_POSTGRES();
  std::string url = test::fresh_postgres_database();
  auto exec = [&](const std::string& sql) {
    PGconn* raw = PQconnectdb(url.c_str());
    PGresult* done = PQexec(raw, sql.c_str());
    EXPECT_EQ(PQresultStatus(done), PGRES_COMMAND_OK) << PQerrorMessage(raw);
    PQclear(done);
    PQfinish(raw);
  };
  exec(std::string(migrations()[0].postgres_sql) + migrations()[1].postgres_sql +
       migrations()[2].postgres_sql +
       "CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, "
       "description TEXT NOT NULL, applied_at BIGINT NOT NULL);"
       "INSERT INTO schema_migrations VALUES (1, 'first', 0), (2, 'second', 0), (3, 'third', 0);"
       "INSERT INTO users (id, email, created_at, updated_at) VALUES ('u1', 'a@b.c', 0, 0);"
       "INSERT INTO sessions (token_digest, user_id, created_at, expires_at) VALUES "
       "(sha256('1'), 'u1', 1, 9000000000000), (sha256('2'), 'u1', 2, 9000000000000);");
  postgres::PostgresStore store(url, 2, 5s);
  EXPECT_EQ(store.migrate(), migrations().back().version);
  // The previous release's INSERT, after the migration.
  exec(
      "INSERT INTO sessions (token_digest, user_id, created_at, expires_at) "
      "VALUES (sha256('3'), 'u1', 3, 9000000000000)");
  std::vector<SessionRecord> sessions;
  ASSERT_EQ(
      store.run(Store::Mode::read,
                [&](Transaction& tx) { sessions = tx.sessions().list_live_of_user("u1", 0); }),
      StoreStatus::ok);
  ASSERT_EQ(sessions.size(), 3u);
  std::set<std::string> ids;
  for (const SessionRecord& s : sessions) {
    EXPECT_TRUE(is_canonical_uuid(s.public_id)) << s.public_id;
    EXPECT_EQ(s.client_address, std::nullopt);
    EXPECT_EQ(s.user_agent, std::nullopt);
    ids.insert(s.public_id);
  }
  EXPECT_EQ(ids.size(), 3u);
}

// Sessions of this test's database waiting for a lock held by another.
int lock_waiters(const std::string& url) {
  PGconn* conn = PQconnectdb(url.c_str());
  PGresult* result = PQexec(conn,
                            "SELECT count(*) FROM pg_stat_activity "
                            "WHERE datname = current_database() AND wait_event_type = 'Lock'");
  int waiters =
      PQresultStatus(result) == PGRES_TUPLES_OK ? std::atoi(PQgetvalue(result, 0, 0)) : -1;
  PQclear(result);
  PQfinish(conn);
  return waiters;
}

// interface.md 8.2, 6 /forgot 4: a claim of the outbox worker locks the
// accounts its mails name, in id order, whether a mail names its account
// by address (a reset) or by id (a notice). It never waits for one held
// elsewhere: an account's change holds the account and then deletes its
// mails, which the claim already holds. It skips that account and names it.
TEST_F(PostgresStoreTest, Interface_8_2_AClaimLocksTheAccountsItsMailsNameAndSkipsAHeldOne) {
  UserRecord one = add_user("one@example.com");
  UserRecord other = add_user("other@example.com");
  const UserRecord& low = one.id < other.id ? one : other;
  const UserRecord& high = one.id < other.id ? other : one;
  PGconn* holder = PQconnectdb(url_.c_str());
  PQclear(PQexec(holder, "BEGIN"));
  PQclear(PQexec(holder, ("SELECT 1 FROM users WHERE id = '" + high.id + "' FOR UPDATE").c_str()));

  HeldAccounts held;
  StoreStatus status = b_->run(Store::Mode::write, [&](Transaction& tx) {
    const std::vector<std::string> emails{high.email};  // named by address
    const std::vector<std::string> ids{low.id};         // named by id
    held = tx.users().lock_in_id_order_unless_held(emails, ids);
    PGconn* probe = PQconnectdb(url_.c_str());
    PQclear(PQexec(probe, "BEGIN"));
    PGresult* locked = PQexec(
        probe, ("SELECT 1 FROM users WHERE id = '" + low.id + "' FOR UPDATE NOWAIT").c_str());
    EXPECT_NE(PQresultStatus(locked), PGRES_TUPLES_OK) << "the free account was not locked";
    PQclear(locked);
    PQfinish(probe);
  });
  EXPECT_EQ(status, StoreStatus::ok);
  EXPECT_EQ(held.ids, std::vector<std::string>{high.id});
  EXPECT_EQ(held.emails, std::vector<std::string>{high.email});
  PQclear(PQexec(holder, "COMMIT"));
  PQfinish(holder);
}

// 7.2: two uses of one reset token, on two instances, interleaved the worst
// way: the second reads while the first has read and not yet committed.
// Exactly one finds the token: the row is read FOR UPDATE, so the second
// waits (seen in pg_stat_activity), then finds it gone.
TEST_F(PostgresStoreTest, Interface_7_2_OneWinnerAmongConcurrentUsesOfAResetToken) {
  UserRecord u = add_user("ada@example.com");
  Sha256Digest digest = add_reset_token(u, "authdrt_example");
  std::atomic<int> winners{0};
  auto use_token = [&](Transaction& tx) {
    auto token = tx.reset_tokens().by_digest(digest);
    if (!token) return;
    tx.reset_tokens().delete_of_user(token->user_id);
    ++winners;
  };
  std::latch first_has_read(1);
  std::latch first_may_commit(1);
  std::atomic<bool> second_has_read{false};
  std::thread first([&] {
    a_->run(Store::Mode::write, [&](Transaction& tx) {
      use_token(tx);
      first_has_read.count_down();
      first_may_commit.wait();
    });
  });
  first_has_read.wait();
  std::thread second([&] {
    b_->run(Store::Mode::write, [&](Transaction& tx) { use_token(tx); });
    second_has_read = true;
  });
  // The second either blocks on the row lock or (were the read unlocked)
  // runs through; poll for either, then let the first commit.
  auto deadline = std::chrono::steady_clock::now() + 10s;
  while (!second_has_read && lock_waiters(url_) == 0 && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(10ms);
  first_may_commit.count_down();
  first.join();
  second.join();
  EXPECT_EQ(winners, 1);
}

// 6 /forgot 4 and 8.2: workers of both instances claiming at once take
// each due mail exactly once (FOR UPDATE SKIP LOCKED).
TEST_F(PostgresStoreTest, Interface_8_2_ConcurrentWorkersClaimEachMailOnce) {
  UserRecord u = add_user("grace@example.com");
  constexpr int kMails = 60;
  ASSERT_EQ(a_->run(Store::Mode::write,
                    [&](Transaction& tx) {
                      for (int i = 0; i < kMails; ++i)
                        tx.outbox().enqueue(
                            {0, "password_reset", u.id, u.email, 1'000, 0, 1'000, {}, {}, {}});
                    }),
            StoreStatus::ok);
  std::mutex mutex;
  std::multiset<std::int64_t> claimed;
  race(6, [&](Store& store, int) {
    for (;;) {
      std::vector<OutboxRecord> mails;
      ASSERT_EQ(
          store.run(Store::Mode::write,
                    [&](Transaction& tx) { mails = tx.outbox().claim_due(2'000, 999'999, 3); }),
          StoreStatus::ok);
      if (mails.empty()) return;
      std::lock_guard lock(mutex);
      for (const OutboxRecord& mail : mails) claimed.insert(mail.id);
    }
  });
  EXPECT_EQ(claimed.size(), static_cast<std::size_t>(kMails));
  EXPECT_EQ(std::set<std::int64_t>(claimed.begin(), claimed.end()).size(),
            static_cast<std::size_t>(kMails));
}

// Minting reset tokens for one user from both instances at once leaves one
// live token, never a unique-key error (the upsert).
TEST_F(PostgresStoreTest, ConcurrentMintsLeaveOneLiveToken) {
  UserRecord u = add_user("mint@example.com");
  race(8, [&](Store& store, int i) {
    Sha256Digest digest = sha256("authdrt_" + std::to_string(i));
    EXPECT_EQ(store.run(Store::Mode::write,
                        [&](Transaction& tx) {
                          tx.reset_tokens().replace({digest, u.id, 1'000, 999'999});
                        }),
              StoreStatus::ok);
  });
  int live = 0;
  for (int i = 0; i < 8; ++i) {
    a_->run(Store::Mode::read, [&](Transaction& tx) {
      if (tx.reset_tokens().by_digest(sha256("authdrt_" + std::to_string(i)))) ++live;
    });
  }
  EXPECT_EQ(live, 1);
}

// A transaction stuck behind a lock gives up at the deadline (unavailable,
// a 503 for the request, never a hang), and the store works again at once
// after, on a fresh connection.
TEST_F(PostgresStoreTest, LockWaitPastTheDeadlineIsUnavailableThenTheStoreRecovers) {
  UserRecord u = add_user("lock@example.com");
  postgres::PostgresStore impatient(url_, 2, 300ms);
  auto hold = [&](Transaction& tx) { tx.users().by_id(u.id); };  // FOR UPDATE: holds the row
  EXPECT_EQ(write_behind(hold, impatient, u.id), StoreStatus::unavailable);

  std::optional<UserRecord> found;
  EXPECT_EQ(
      impatient.run(Store::Mode::write, [&](Transaction& tx) { found = tx.users().by_id(u.id); }),
      StoreStatus::ok);
  EXPECT_TRUE(found.has_value());
}

// A read runs each statement on its own, without BEGIN READ ONLY around
// them (one round trip instead of three): the session is read-only by
// default, so a read still cannot write, and nothing is left behind.
TEST_F(PostgresStoreTest, Interface_8_3_AReadCannotWriteThoughItRunsWithoutABegin) {
  EXPECT_NE(a_->run(Store::Mode::read,
                    [](Transaction& tx) { tx.throttle().insert_event("read:writes", 1'000); }),
            StoreStatus::ok);
  std::vector<Millis> times{1};
  ASSERT_EQ(
      a_->run(Store::Mode::write,
              [&](Transaction& tx) { times = tx.throttle().event_times("read:writes", 0, 10); }),
      StoreStatus::ok);
  EXPECT_TRUE(times.empty());
}

// A write's BEGIN and a statement's first PREPARE travel with the
// statement, in one round trip. When that statement fails, the failure is
// its own, the transaction is rolled back, and the connection (the only
// one) serves the next transactions, with the statement prepared once.
TEST_F(PostgresStoreTest,
       Interface_8_3_AStatementFailingInItsFirstRoundTripLeavesTheConnectionUsable) {
  UserRecord u = add_user("pipeline@example.com");
  postgres::PostgresStore one(url_, 1, 5s);
  Millis expires = now_millis() + 60'000;
  // No such user: the foreign key refuses the session.
  EXPECT_EQ(one.run(Store::Mode::write,
                    [&](Transaction& tx) {
                      tx.sessions().insert({sha256("orphan"), "no-such-user", 1'000, expires});
                    }),
            StoreStatus::failed);
  EXPECT_EQ(one.run(Store::Mode::write,
                    [&](Transaction& tx) {
                      tx.sessions().insert({sha256("kept"), u.id, 1'000, expires});
                    }),
            StoreStatus::ok);
  bool orphan = true;
  bool kept = false;
  ASSERT_EQ(one.run(Store::Mode::read,
                    [&](Transaction& tx) {
                      orphan = tx.sessions().user_of(sha256("orphan")).has_value();
                      kept = tx.sessions().user_of(sha256("kept")).has_value();
                    }),
            StoreStatus::ok);
  EXPECT_FALSE(orphan);
  EXPECT_TRUE(kept);
}

// An event added without waiting for its seq travels with the next
// statement or the COMMIT. When it fails there (PostgreSQL refuses text
// that is not UTF-8), the transaction fails as a whole: the session
// inserted before it is not kept either.
TEST_F(PostgresStoreTest, Interface_8_3_AnEventSentAheadThatFailsFailsItsTransaction) {
  UserRecord u = add_user("ahead@example.com");
  EventRecord bad;
  bad.id = "event-1";
  bad.at = 1'000;
  bad.type = "logout";
  bad.user_id = u.id;
  bad.actor = "self";
  bad.detail = "{\"x\":\"\xff\"}";
  EXPECT_EQ(a_->run(Store::Mode::write,
                    [&](Transaction& tx) {
                      tx.sessions().insert({sha256("ahead"), u.id, 1'000, now_millis() + 60'000});
                      tx.events().add(bad);
                    }),
            StoreStatus::failed);
  bool kept = true;
  std::vector<EventRecord> events;
  ASSERT_EQ(a_->run(Store::Mode::read,
                    [&](Transaction& tx) {
                      kept = tx.sessions().user_of(sha256("ahead")).has_value();
                      events = tx.events().list(EventFilter{});
                    }),
            StoreStatus::ok);
  EXPECT_FALSE(kept);
  EXPECT_TRUE(events.empty());
}

// Database::write_together on PostgreSQL: the units share one transaction
// and one COMMIT, each sees the ones before it, and all are reported ok.
TEST_F(PostgresStoreTest, Interface_8_3_WritesTogetherShareOneTransaction) {
  add_live_sessions(add_user("together@example.com"), {"one", "two"});
  int runs = 0;
  std::optional<UserRecord> first, second, again;
  std::vector<std::function<void(Transaction&)>> works = {
      [&](Transaction& tx) {
        ++runs;
        first = tx.sessions().revoke_live(sha256("one"), now_millis());
      },
      [&](Transaction& tx) {
        ++runs;
        second = tx.sessions().revoke_live(sha256("two"), now_millis());
      },
      [&](Transaction& tx) { again = tx.sessions().revoke_live(sha256("one"), now_millis()); },
  };
  for (const TransactionUnit& unit : run_together(works)) EXPECT_EQ(unit.status, StoreStatus::ok);
  EXPECT_TRUE(first);
  EXPECT_TRUE(second);
  EXPECT_FALSE(again);  // the first unit's revoke is seen by the third
  EXPECT_EQ(runs, 2);   // each ran once
}

// /forgot requests share their transaction (Database::write_together): a
// batch locks every throttling key its units name before the first unit
// counts, so that it never holds one key while waiting for another, and
// two batches (or two instances) that name the same keys cannot deadlock.
TEST_F(PostgresStoreTest, Interface_6_Forgot_5_ABatchLocksEveryKeyItsUnitsNameBeforeTheFirstCount) {
  std::int64_t held_during_first_count = 0;
  std::vector<std::function<void(Transaction&)>> works = {
      [&](Transaction& tx) {
        tx.throttle().event_times("forgot:client:192.0.2.1", 0, 10);
        held_during_first_count = advisory_locks_held();
      },
      [&](Transaction& tx) { tx.throttle().event_times("forgot:client:192.0.2.2", 0, 10); },
  };
  std::vector<std::vector<std::string>> keys = {
      {"forgot:client:192.0.2.1", "mail:reset:a@example.com"},
      {"mail:reset:b@example.com", "forgot:client:192.0.2.2", "mail:reset:a@example.com"}};
  for (const TransactionUnit& unit : run_together(works, keys))
    EXPECT_EQ(unit.status, StoreStatus::ok);
  EXPECT_EQ(held_during_first_count, 4);  // each distinct key once
  EXPECT_EQ(advisory_locks_held(), 0);    // released at the COMMIT
}

// Units in batches on two instances, all counting one key: the limit of
// 10 holds exactly, whether a unit counts in its batch or, after a
// failure, alone.
TEST_F(PostgresStoreTest, Interface_6_Forgot_5_TheCountIsExactAcrossBatchesOfTwoInstances) {
  const std::string key = "forgot:client:198.51.100.9";
  std::atomic<int> allowed{0};
  race(4, [&](Store& store, int batch) {
    std::vector<std::function<void(Transaction&)>> works;
    works.reserve(4);
    for (int i = 0; i < 4; ++i) {
      works.emplace_back([&, batch, i](Transaction& tx) {
        if (batch == 0 && i == 3) throw std::runtime_error("undoes its batch");
        if (tx.throttle().event_times(key, 0, 100).size() >= 10) return;
        tx.throttle().add_event(key, now_millis());
        ++allowed;  // counts the runs of an undone batch too: checked below
      });
    }
    run_together(works, std::vector<std::vector<std::string>>(4, {key}), &store);
  });
  std::size_t stored = 0;
  a_->run(Store::Mode::read,
          [&](Transaction& tx) { stored = tx.throttle().event_times(key, 0, 100).size(); });
  EXPECT_EQ(stored, 10u);
  EXPECT_GE(allowed.load(), 10);
}

// The same with batches whose units each count a key of their own, which
// are pipelined (PostgresStore::run_in_one_transaction): every key's limit
// of 2 holds exactly across four batches on two instances, and the locks
// are all taken before the first count.
TEST_F(PostgresStoreTest, Interface_6_Forgot_5_CountsOfPipelinedBatchesAreExactAcrossInstances) {
  constexpr int kUnits = 4;
  auto key_of = [](int unit) { return "forgot:client:203.0.113." + std::to_string(unit); };
  std::atomic<int> allowed{0};
  std::atomic<std::int64_t> fewest_locks_at_a_count{1'000};
  race(4, [&](Store& store, int batch) {
    std::vector<std::function<void(Transaction&)>> works;
    works.reserve(kUnits);
    for (int i = 0; i < kUnits; ++i) {
      works.emplace_back([&, batch, i](Transaction& tx) {
        if (batch == 0 && i == 3) throw std::runtime_error("undoes its batch");
        const std::size_t counted = tx.throttle().event_times(key_of(i), 0, 100).size();
        if (batch == 1) {  // its locks, seen from another connection
          std::int64_t held = advisory_locks_held();
          std::int64_t fewest = fewest_locks_at_a_count.load();
          while (held < fewest && !fewest_locks_at_a_count.compare_exchange_weak(fewest, held)) {
          }
        }
        if (counted >= 2) return;
        tx.throttle().add_event(key_of(i), now_millis());
        ++allowed;
      });
    }
    std::vector<std::vector<std::string>> keys;
    keys.reserve(kUnits);
    for (int i = 0; i < kUnits; ++i) keys.push_back({key_of(i)});
    run_together(works, keys, &store);
  });
  for (int i = 0; i < kUnits; ++i) {
    std::size_t stored = 0;
    a_->run(Store::Mode::read,
            [&](Transaction& tx) { stored = tx.throttle().event_times(key_of(i), 0, 100).size(); });
    EXPECT_EQ(stored, 2u) << key_of(i);
  }
  EXPECT_GE(allowed.load(), 2 * kUnits);
  EXPECT_GE(fewest_locks_at_a_count.load(), kUnits) << "every key of the batch locked first";
}

// interface.md 6 /forgot 5 and 8.2: batches whose units all name one
// client's key, on two instances at once: each batch's units count it in
// turn, the batches one after the other, and a limit of 5 lets exactly 5
// through of 16.
TEST_F(PostgresStoreTest, Interface_6_Forgot_5_OneClientsBatchesAreExactAcrossInstances) {
  const std::string key = "forgot:client:203.0.113.77";
  std::vector<char> let_through(16, 0);  // each unit assigns only its own
  race(4, [&](Store& store, int batch) {
    std::vector<std::function<void(Transaction&)>> works;
    for (int i = 0; i < 4; ++i)
      works.emplace_back([&, place = static_cast<std::size_t>(batch * 4 + i)](Transaction& tx) {
        let_through[place] = tx.throttle().event_times(key, 0, 5).size() < 5 ? 1 : 0;
        if (let_through[place] != 0) tx.throttle().add_event(key, now_millis());
      });
    for (const TransactionUnit& unit :
         run_together(works, std::vector<std::vector<std::string>>(works.size(), {key}), &store))
      EXPECT_EQ(unit.status, StoreStatus::ok);
  });
  std::size_t stored = 0;
  a_->run(Store::Mode::read,
          [&](Transaction& tx) { stored = tx.throttle().event_times(key, 0, 100).size(); });
  EXPECT_EQ(stored, 5u);
  EXPECT_EQ(std::count(let_through.begin(), let_through.end(), 1), 5);
}

// A unit that fails undoes the shared transaction; then each unit runs
// alone: the failing one fails, the others commit, each exactly once.
TEST_F(PostgresStoreTest, Interface_8_3_AFailingUnitLeavesTheOthersOfItsBatchCommittedOnce) {
  add_live_sessions(add_user("undone@example.com"), {"kept-1", "kept-2"});
  const Millis expires = now_millis() + 60'000;
  int runs = 0;
  std::optional<UserRecord> first, last;
  std::vector<std::function<void(Transaction&)>> works = {
      [&](Transaction& tx) {
        ++runs;
        first = tx.sessions().revoke_live(sha256("kept-1"), now_millis());
        tx.throttle().insert_event("undone:counted", 1);
      },
      [&](Transaction& tx) {
        // No such user: the foreign key refuses it.
        tx.sessions().insert({sha256("orphan"), "no-such-user", 1'000, expires});
      },
      [&](Transaction& tx) {
        last = tx.sessions().revoke_live(sha256("kept-2"), now_millis());
        tx.throttle().insert_event("undone:counted", 1);
      },
  };
  std::vector<TransactionUnit> units = run_together(works);
  EXPECT_EQ(units[0].status, StoreStatus::ok);
  EXPECT_EQ(units[1].status, StoreStatus::failed);
  EXPECT_EQ(units[2].status, StoreStatus::ok);
  EXPECT_EQ(runs, 2);  // in the batch, then alone
  EXPECT_TRUE(first);
  EXPECT_TRUE(last);
  std::vector<Millis> counted;
  ASSERT_EQ(a_->run(Store::Mode::write,
                    [&](Transaction& tx) {
                      counted = tx.throttle().event_times("undone:counted", 0, 10);
                    }),
            StoreStatus::ok);
  EXPECT_EQ(counted.size(), 2u);  // the undone batch left nothing behind
}

// Two writers that lock a user's row and its reset token (a reset using
// the token, a worker minting a new one) interleaved the worst way: the
// reset has read the token when the mint locks the user. Both commit: the
// reset locks the user before the token, as the mint does, so neither waits
// on the other in a cycle (a deadlock would fail one with 503).
TEST_F(PostgresStoreTest, ResetAndMintForOneUserDoNotDeadlock) {
  UserRecord u = add_user("cycle@example.com");
  Sha256Digest old_token = add_reset_token(u, "authdrt_old");
  std::latch reset_has_read(1);
  std::latch reset_may_go_on(1);
  std::atomic<bool> mint_has_user{false};
  StoreStatus reset_status = StoreStatus::failed;
  StoreStatus mint_status = StoreStatus::failed;
  std::thread reset([&] {
    reset_status = a_->run(Store::Mode::write, [&](Transaction& tx) {
      auto token = tx.reset_tokens().by_digest(old_token);
      reset_has_read.count_down();
      reset_may_go_on.wait();
      if (!token) return;
      tx.users().by_id(token->user_id);
      tx.reset_tokens().delete_of_user(token->user_id);
    });
  });
  reset_has_read.wait();
  std::thread mint([&] {
    mint_status = b_->run(Store::Mode::write, [&](Transaction& tx) {
      tx.users().by_id(u.id);
      mint_has_user = true;
      tx.reset_tokens().replace({sha256("authdrt_new"), u.id, 2'000, now_millis() + 60'000});
    });
  });
  // The mint either waits for the user's row or (were the lock order
  // reversed) holds it and waits for the token's; poll for either.
  auto deadline = std::chrono::steady_clock::now() + 10s;
  while (!mint_has_user && lock_waiters(url_) == 0 && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(10ms);
  reset_may_go_on.count_down();
  reset.join();
  mint.join();
  EXPECT_EQ(reset_status, StoreStatus::ok);
  EXPECT_EQ(mint_status, StoreStatus::ok);
}

// An unreachable server fails at start with a BusyError, the URL's password
// nowhere in the message.
TEST(PostgresStoreStart, UnreachableServerFailsAtStartWithoutThePassword) {
  // Port 1 on loopback: nothing listens there, the connect is refused.
  try {
    postgres::PostgresStore store("postgresql://authd:pw-s3cret@127.0.0.1:1/authd", 1, 2s);
    FAIL() << "connected to nothing";
  } catch (const BusyError& e) {
    EXPECT_EQ(std::string(e.what()).find("pw-s3cret"), std::string::npos) << e.what();
  }
}

// A URL that libpq cannot parse is a configuration error, and libpq's
// message, which quotes the URL, is not passed on.
TEST(PostgresStoreStart, MalformedUrlIsAnErrorThatDoesNotQuoteThePassword) {
  for (const char* url : {"postgresql://authd:pw-s3cret@[::1]x/authd",
                          "postgresql://authd:pw-s3cret%zz@127.0.0.1/authd"}) {
    try {
      postgres::PostgresStore store(url, 1, 2s);
      ADD_FAILURE() << "accepted " << url;
    } catch (const StoreError& e) {
      std::string message = e.what();
      EXPECT_EQ(message.find("pw-s3cret"), std::string::npos) << message;
      EXPECT_NE(message.find("could not be parsed"), std::string::npos) << message;
    }
  }
}

}  // namespace
}  // namespace authd
