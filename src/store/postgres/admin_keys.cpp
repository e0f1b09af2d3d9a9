// How PostgreSQL stores admin keys: one row per name, the key only as its
// digest.
#include "store/postgres/connection.hpp"
#include "store/postgres/transaction.hpp"

namespace authd::postgres {
namespace {

#define AUTHD_ADMIN_KEY_COLUMNS "name, key_digest, scope, created_at, last_used_at"

AdminKeyRecord read_key(const Row& row) {
  return AdminKeyRecord{row.text(0), row.digest(1), row.text(2), row.integer(3),
                        row.optional_integer(4)};
}

}  // namespace

bool AdminKeys::insert(const AdminKeyRecord& key) {
  Params params;
  params.text(key.name).digest(key.key_digest).text(key.scope).integer(key.created_at);
  params.integer(key.last_used_at);
  return db_.run("INSERT INTO admin_keys (" AUTHD_ADMIN_KEY_COLUMNS
                 ") VALUES ($1, $2, $3, $4, $5) ON CONFLICT (name) DO NOTHING",
                 params)
             .affected() == 1;
}

std::optional<AdminKeyRecord> AdminKeys::by_digest(const Sha256Digest& digest) {
  Params params;
  params.digest(digest);
  Result rows =
      db_.run("SELECT " AUTHD_ADMIN_KEY_COLUMNS " FROM admin_keys WHERE key_digest = $1", params);
  if (rows.rows() == 0) return std::nullopt;
  return read_key(Row(rows, 0));
}

std::vector<AdminKeyRecord> AdminKeys::list() {
  Result rows = db_.run("SELECT " AUTHD_ADMIN_KEY_COLUMNS " FROM admin_keys ORDER BY name");
  std::vector<AdminKeyRecord> keys;
  keys.reserve(static_cast<std::size_t>(rows.rows()));
  for (int i = 0; i < rows.rows(); ++i) keys.push_back(read_key(Row(rows, i)));
  return keys;
}

bool AdminKeys::revoke(std::string_view name) {
  Params params;
  params.text(name);
  return db_.run("DELETE FROM admin_keys WHERE name = $1", params).affected() == 1;
}

void AdminKeys::mark_used(std::string_view name, Millis at) {
  Params params;
  params.text(name).integer(at);
  db_.run("UPDATE admin_keys SET last_used_at = $2 WHERE name = $1", params);
}

}  // namespace authd::postgres
