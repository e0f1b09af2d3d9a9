// A fresh, empty database on the PostgreSQL server named by
// AUTHD_TEST_POSTGRES (scripts/with-postgres.sh starts one; scripts/test.sh
// runs the PostgreSQL tests there). Without it those tests skip.
#pragma once

#include <libpq-fe.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <thread>

#include "store/postgres/postgres_store.hpp"

// In a test's SetUp: skips the test without a server to run it on.
#define AUTHD_SKIP_WITHOUT_POSTGRES()                                         \
  do {                                                                        \
    if (!::authd::test::postgres_available())                                 \
      GTEST_SKIP() << "needs AUTHD_TEST_POSTGRES (scripts/with-postgres.sh)"; \
  } while (false)

namespace authd::test {

inline bool postgres_available() {
  const char* server = std::getenv("AUTHD_TEST_POSTGRES");
  return server != nullptr && *server != '\0';
}

// Its URL.
inline std::string fresh_postgres_database() {
  const std::string server = std::getenv("AUTHD_TEST_POSTGRES");
  static std::atomic<int> counter{0};
  std::string name = "unittest_" + std::to_string(::getpid()) + "_" + std::to_string(++counter) +
                     "_" +
                     std::to_string(std::chrono::steady_clock::now().time_since_epoch().count());
  PGconn* admin = PQconnectdb((server + "/postgres").c_str());
  PGresult* result = PQexec(admin, ("CREATE DATABASE " + name).c_str());
  bool created = PQresultStatus(result) == PGRES_COMMAND_OK;
  std::string error = PQerrorMessage(admin);
  PQclear(result);
  PQfinish(admin);
  if (!created) throw std::runtime_error("CREATE DATABASE failed: " + error);
  return server + "/" + name;
}

// A fresh database with authd's schema: its URL.
inline std::string migrated_postgres_database() {
  std::string url = fresh_postgres_database();
  postgres::PostgresStore(url, 1, std::chrono::seconds(5)).migrate();
  return url;
}

// Ends authd's sessions on this database from a connection of the test's
// own, and waits until they are gone.
inline void end_authd_sessions(const std::string& url) {
  PGconn* raw = PQconnectdb(url.c_str());
  const char* end =
      "SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
      " WHERE application_name = 'authd' AND datname = current_database()";
  const char* left =
      "SELECT count(*) FROM pg_stat_activity"
      " WHERE application_name = 'authd' AND datname = current_database()";
  PQclear(PQexec(raw, end));
  for (int tries = 0; tries < 500; ++tries) {
    PGresult* result = PQexec(raw, left);
    bool gone =
        PQresultStatus(result) == PGRES_TUPLES_OK && std::string(PQgetvalue(result, 0, 0)) == "0";
    PQclear(result);
    if (gone) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  PQfinish(raw);
}

}  // namespace authd::test
