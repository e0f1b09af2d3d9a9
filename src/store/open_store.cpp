#include "store/open_store.hpp"

#include "store/sqlite/sqlite_store.hpp"

namespace authd {

std::unique_ptr<Store> open_store(const std::string& url) {
  constexpr std::string_view kSqlite = "sqlite:";
  if (url.rfind(kSqlite, 0) == 0 && url.size() > kSqlite.size())
    return std::make_unique<sqlite::SqliteStore>(url.substr(kSqlite.size()));
  // Only the scheme: the rest of a URL may hold a password.
  std::string scheme = url.substr(0, url.find(':'));
  throw StoreError("unsupported --database scheme '" + scheme + "': expected sqlite:PATH");
}

}  // namespace authd
