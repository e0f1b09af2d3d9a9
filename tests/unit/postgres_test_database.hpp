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

}  // namespace authd::test
