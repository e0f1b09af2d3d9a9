// The store conformance suites' fixture: a fresh store of each backend
// (SQLite in a temporary directory, PostgreSQL in a fresh database when
// AUTHD_TEST_POSTGRES names a server), and helpers that make rows. Shared by
// store_conformance_test.cpp and store_conformance_admin_test.cpp.
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "crypto/random.hpp"
#include "postgres_test_database.hpp"
#include "store/postgres/postgres_store.hpp"
#include "store/sqlite/sqlite_store.hpp"
#include "temp_directory.hpp"

namespace authd {

using namespace std::chrono_literals;

// The two backends, by the names the test names carry (ctest:
// unit.StoreConformance.<test><authd::OnSqlite>); outside the anonymous
// namespace so that the names stay that short.
struct OnSqlite {
  std::unique_ptr<Store> open() {
    return std::make_unique<sqlite::SqliteStore>(dir.file("authd.db"));
  }
  test::TempDirectory dir;
};

struct OnPostgres {
  std::unique_ptr<Store> open() {
    if (!test::postgres_available()) return nullptr;
    url = test::fresh_postgres_database();
    return std::make_unique<postgres::PostgresStore>(url, 4, 5s);
  }
  std::string url;  // the fresh database's, for a test's own connection
};

template <class Backend>
class StoreConformanceFixture : public ::testing::Test {
 protected:
  void SetUp() override {
    store_ = backend_.open();
    if (!store_) GTEST_SKIP() << "needs AUTHD_TEST_POSTGRES (scripts/with-postgres.sh)";
    store_->migrate();
  }

  // Runs `work` in a write transaction and expects it to commit.
  template <class Work>
  void write(Work&& work) {
    ASSERT_EQ(store_->run(Store::Mode::write, std::forward<Work>(work)), StoreStatus::ok);
  }
  template <class Work>
  void read(Work&& work) {
    ASSERT_EQ(store_->run(Store::Mode::read, std::forward<Work>(work)), StoreStatus::ok);
  }

  static UserRecord user(const std::string& email, Millis at = 1'000) {
    UserRecord u;
    u.id = new_uuid_v7(at);
    u.email = email;
    u.password_hash = "$argon2id$v=19$m=64,t=1,p=1$c2FsdA$aGFzaA";
    u.created_at = u.updated_at = at;
    return u;
  }

  UserRecord stored_user(const std::string& email) {
    UserRecord u = user(email);
    write([&](Transaction& tx) { ASSERT_TRUE(tx.users().insert(u)); });
    return u;
  }

  static OutboxRecord mail(const std::string& email, Millis next_attempt_at) {
    return OutboxRecord{0, "password_reset", "", email, 1'000, 0, next_attempt_at, {}, {}, {}};
  }

  static OutboxRecord signup_mail(const std::string& email, Millis next_attempt_at) {
    return OutboxRecord{0,
                        "signup",
                        "",
                        email,
                        1'000,
                        0,
                        next_attempt_at,
                        "$argon2id$v=19$m=64,t=1,p=1$c2$aA",
                        "Ann",
                        "192.0.2.7"};
  }

  // The oldest due mail alone, as a claim of one.
  static std::optional<OutboxRecord> claim_one_due(Transaction& tx, Millis now,
                                                   Millis lease_until) {
    std::vector<OutboxRecord> mails = tx.outbox().claim_due(now, lease_until, 1);
    if (mails.empty()) return std::nullopt;
    return std::move(mails.front());
  }

  static PendingSignupRecord signup(const std::string& token, const std::string& email,
                                    Millis expires_at, std::optional<std::string> name = {}) {
    return PendingSignupRecord{
        sha256(token), email, "$argon2id$v=19$m=64,t=1,p=1$c2$" + token, std::move(name), 1'000,
        expires_at,    0};
  }

  Backend backend_;
  std::unique_ptr<Store> store_;
};

}  // namespace authd
