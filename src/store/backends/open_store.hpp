// Chooses the store backend from the --database URL.
#pragma once

#include <chrono>
#include <cstddef>
#include <memory>
#include <optional>
#include <string>

#include "store/store.hpp"

namespace authd {

struct StoreOptions {
  // PostgreSQL only.
  std::size_t pool_size = 6;                // connections this process may open
  std::chrono::milliseconds timeout{5000};  // per connect and per round trip
  // SQLite only: the page cache of each connection that runs the requests'
  // reads, in KiB (0: SQLite's default, 2,000 KiB). Filled only as pages are
  // read, so a small database costs only its own size.
  std::size_t sqlite_read_cache_kib = 0;
  // PostgreSQL only: the URL names a transaction pooler (PgBouncer's
  // pool_mode = transaction): nothing kept in the session (interface.md 20.3).
  bool transaction_pooler = false;
};

// Why a PostgreSQL connection could be read or redirected on the network:
// a server on another machine (a host that is not a Unix socket,
// "localhost" or a loopback address) without sslmode=verify-full, which
// alone both encrypts and checks the server's certificate and name. The
// URL's settings count, else libpq's defaults (PGSSLMODE, PGHOST). Nothing
// when the connection is safe or local, for SQLite, and for a URL that
// libpq cannot read (opening it fails anyway).
struct DatabaseTransportRisk {
  std::string host;     // the first remote host
  std::string sslmode;  // as libpq will use it
};
std::optional<DatabaseTransportRisk> database_transport_risk(const std::string& database_url);

// "sqlite:PATH" (the embedded default) or "postgresql://..." (also
// "postgres://"). Throws StoreError for anything else or when the database
// cannot be opened or reached.
std::unique_ptr<Store> open_store(const std::string& database_url,
                                  const StoreOptions& options = {});

}  // namespace authd
