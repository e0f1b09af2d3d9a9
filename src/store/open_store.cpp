#include "store/open_store.hpp"

#include "store/postgres/postgres_store.hpp"
#include "store/sqlite/sqlite_store.hpp"

namespace authd {

std::unique_ptr<Store> open_store(const std::string& url, const StoreOptions& options) {
  constexpr std::string_view kSqlite = "sqlite:";
  if (url.rfind(kSqlite, 0) == 0 && url.size() > kSqlite.size())
    return std::make_unique<sqlite::SqliteStore>(url.substr(kSqlite.size()),
                                                 options.sqlite_read_cache_kib);
  if (url.rfind("postgresql://", 0) == 0 || url.rfind("postgres://", 0) == 0)
    return std::make_unique<postgres::PostgresStore>(url, options.pool_size, options.timeout);
  // Only the scheme: the rest of a URL may hold a password.
  std::string scheme = url.substr(0, url.find(':'));
  throw StoreError("unsupported --database scheme '" + scheme +
                   "': expected sqlite:PATH or postgresql://...");
}

}  // namespace authd
