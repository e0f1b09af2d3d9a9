#include "store/backends/open_store.hpp"

#include <libpq-fe.h>

#include <cctype>
#include <memory>

#include "core/loopback.hpp"
#include "store/postgres/postgres_store.hpp"
#include "store/sqlite/sqlite_store.hpp"

namespace authd {
namespace {

// libpq's two forms: the URL, and the keyword/value string
// ("host=a,b port=5432,5433 dbname=authd target_session_attrs=read-write",
// interface.md 20.1), which starts with a keyword and an equals sign.
bool is_postgres_url(const std::string& url) {
  if (url.rfind("postgresql://", 0) == 0 || url.rfind("postgres://", 0) == 0) return true;
  std::size_t start = url.find_first_not_of(" \t");
  if (start == std::string::npos) return false;
  std::size_t end = start;
  while (end < url.size() &&
         (std::islower(static_cast<unsigned char>(url[end])) || url[end] == '_'))
    ++end;
  std::size_t equals = url.find_first_not_of(" \t", end);
  return end > start && equals != std::string::npos && url[equals] == '=';
}

// A host entry of libpq's `host` or `hostaddr` that stays on this machine.
bool is_local_host(std::string_view host) {
  if (host.empty() || host.front() == '/' || host.front() == '@') return true;  // Unix sockets
  return is_loopback_host(host);
}

// libpq's value of `keyword` in `options` (a PQconninfoOption array).
std::string option_value(const PQconninfoOption* options, std::string_view keyword) {
  for (const PQconninfoOption* o = options; o != nullptr && o->keyword != nullptr; ++o) {
    if (keyword == o->keyword) return o->val != nullptr ? o->val : "";
  }
  return "";
}

}  // namespace

std::optional<DatabaseTransportRisk> database_transport_risk(const std::string& url) {
  if (!is_postgres_url(url)) return std::nullopt;
  char* error = nullptr;
  std::unique_ptr<PQconninfoOption, void (*)(PQconninfoOption*)> parsed(
      PQconninfoParse(url.c_str(), &error), PQconninfoFree);
  if (error != nullptr) PQfreemem(error);  // may quote the URL: never logged
  if (!parsed) return std::nullopt;
  std::unique_ptr<PQconninfoOption, void (*)(PQconninfoOption*)> defaults(PQconndefaults(),
                                                                          PQconninfoFree);
  auto effective = [&](std::string_view keyword) {
    std::string value = option_value(parsed.get(), keyword);
    return value.empty() ? option_value(defaults.get(), keyword) : value;
  };
  std::string sslmode = effective("sslmode");
  if (sslmode == "verify-full") return std::nullopt;
  // libpq connects to `hostaddr` when given (`host` then only names the
  // server for its certificate), else to `host`: comma-separated lists.
  std::string targets = effective("hostaddr");
  if (targets.empty()) targets = effective("host");
  std::size_t start = 0;
  while (true) {
    auto comma = targets.find(',', start);
    std::string_view host = std::string_view(targets).substr(start, comma - start);
    if (!is_local_host(host))
      return DatabaseTransportRisk{std::string(host), sslmode.empty() ? "prefer" : sslmode};
    if (comma == std::string::npos) return std::nullopt;
    start = comma + 1;
  }
}

std::unique_ptr<Store> open_store(const std::string& url, const StoreOptions& options) {
  constexpr std::string_view kSqlite = "sqlite:";
  if (url.rfind(kSqlite, 0) == 0 && url.size() > kSqlite.size())
    return std::make_unique<sqlite::SqliteStore>(url.substr(kSqlite.size()),
                                                 options.sqlite_read_cache_kib);
  if (is_postgres_url(url))
    return std::make_unique<postgres::PostgresStore>(url, options.pool_size, options.timeout,
                                                     options.transaction_pooler);
  // Only the scheme: the rest of a URL may hold a password.
  std::string scheme = url.substr(0, url.find_first_of(":= "));
  throw StoreError("unsupported --database scheme '" + scheme +
                   "': expected sqlite:PATH, postgresql://... or libpq's host=... form");
}

}  // namespace authd
