// How SQLite stores admin keys: one row per name, the key only as its digest.
#include "store/sqlite/connection.hpp"
#include "store/sqlite/transaction.hpp"

namespace authd::sqlite {
namespace {

#define AUTHD_ADMIN_KEY_COLUMNS "name, key_digest, scope, created_at, last_used_at"

AdminKeyRecord read_key(const Statement& st) {
  return AdminKeyRecord{st.text(0), st.digest(1), st.text(2), st.integer(3),
                        st.optional_integer(4)};
}

}  // namespace

bool AdminKeys::insert(const AdminKeyRecord& key) {
  auto st = db_.prepare("INSERT INTO admin_keys (" AUTHD_ADMIN_KEY_COLUMNS
                        ") VALUES (?1, ?2, ?3, ?4, ?5) ON CONFLICT (name) DO NOTHING");
  st.bind(1, key.name).bind(2, key.key_digest).bind(3, key.scope).bind(4, key.created_at);
  st.bind(5, key.last_used_at);
  st.run();
  return db_.changes() == 1;
}

std::optional<AdminKeyRecord> AdminKeys::by_digest(const Sha256Digest& digest) {
  auto st =
      db_.prepare("SELECT " AUTHD_ADMIN_KEY_COLUMNS " FROM admin_keys WHERE key_digest = ?1");
  st.bind(1, digest);
  if (!st.step()) return std::nullopt;
  return read_key(st);
}

std::vector<AdminKeyRecord> AdminKeys::list() {
  auto st = db_.prepare("SELECT " AUTHD_ADMIN_KEY_COLUMNS " FROM admin_keys ORDER BY name");
  std::vector<AdminKeyRecord> keys;
  while (st.step()) keys.push_back(read_key(st));
  return keys;
}

bool AdminKeys::revoke(std::string_view name) {
  auto st = db_.prepare("DELETE FROM admin_keys WHERE name = ?1");
  st.bind(1, name);
  st.run();
  return db_.changes() == 1;
}

void AdminKeys::mark_used(std::string_view name, Millis at) {
  auto st = db_.prepare("UPDATE admin_keys SET last_used_at = ?2 WHERE name = ?1");
  st.bind(1, name).bind(2, at);
  st.run();
}

}  // namespace authd::sqlite
