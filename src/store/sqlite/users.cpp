// How SQLite stores users and the kinds of their password hashes.
#include <algorithm>

#include <set>

#include "crypto/hash_kind.hpp"
#include "store/sqlite/connection.hpp"
#include "store/sqlite/transaction.hpp"
#include "store/user_columns.hpp"

namespace authd::sqlite {
namespace {

// Parameters 2 to 9: the columns that an update may change.
void bind_user_fields(Statement& st, const UserRecord& u) {
  st.bind(2, u.email).bind(3, u.password_hash).bind(4, u.phone);
  st.bind(5, u.photo_url).bind(6, u.display_name).bind(7, u.email_verified_at);
  st.bind(8, u.phone_verified_at).bind(9, static_cast<std::int64_t>(u.disabled ? 1 : 0));
}

}  // namespace

std::optional<UserRecord> Users::by_email(std::string_view email) {
  auto st = db_.prepare("SELECT " AUTHD_USER_COLUMNS " FROM users WHERE email = ?1");
  st.bind(1, email);
  if (!st.step()) return std::nullopt;
  return read_user(st);
}

bool Users::email_taken(std::string_view email) {
  auto st = db_.prepare("SELECT 1 FROM users WHERE email = ?1");
  st.bind(1, email);
  return st.step();
}

std::optional<std::string> Users::email_of(std::string_view id) {
  auto st = db_.prepare("SELECT email FROM users WHERE id = ?1");
  st.bind(1, id);
  if (!st.step()) return std::nullopt;
  return st.text(0);
}

HeldAccounts Users::lock_in_id_order_unless_held(std::span<const std::string> /*emails*/,
                                                 std::span<const std::string> /*ids*/) {
  return {};
}

std::optional<UserRecord> Users::by_id(std::string_view id) {
  auto st = db_.prepare("SELECT " AUTHD_USER_COLUMNS " FROM users WHERE id = ?1");
  st.bind(1, id);
  if (!st.step()) return std::nullopt;
  return read_user(st);
}

bool Users::insert(const UserRecord& u) {
  auto st = db_.prepare("INSERT INTO users (" AUTHD_USER_COLUMNS
                        ") VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12) "
                        "ON CONFLICT (email) DO NOTHING");
  st.bind(1, u.id);
  bind_user_fields(st, u);
  st.bind(10, u.created_at).bind(11, u.updated_at).bind(12, u.last_login_at);
  st.run();
  if (db_.changes() != 1) return false;
  if (u.password_hash) record_hash_kind(*u.password_hash);
  return true;
}

void Users::update(const UserRecord& u) {
  auto st = db_.prepare(
      "UPDATE users SET email = ?2, password_hash = ?3, phone = ?4, photo_url = ?5, "
      "display_name = ?6, email_verified_at = ?7, phone_verified_at = ?8, disabled = ?9, "
      "updated_at = ?10 WHERE id = ?1");
  st.bind(1, u.id);
  bind_user_fields(st, u);
  st.bind(10, u.updated_at);
  st.run();
  if (u.password_hash) record_hash_kind(*u.password_hash);
}

// One writer at a time: OR IGNORE skips the row when the new address is
// another account's, and nothing else can commit meanwhile.
bool Users::update_unless_email_taken(const UserRecord& u) {
  auto st = db_.prepare(
      "UPDATE OR IGNORE users SET email = ?2, password_hash = ?3, phone = ?4, photo_url = ?5, "
      "display_name = ?6, email_verified_at = ?7, phone_verified_at = ?8, disabled = ?9, "
      "updated_at = ?10 WHERE id = ?1");
  st.bind(1, u.id);
  bind_user_fields(st, u);
  st.bind(10, u.updated_at);
  st.run();
  if (db_.changes() != 1) return false;
  if (u.password_hash) record_hash_kind(*u.password_hash);
  return true;
}

void Users::replace_password_hash(std::string_view user_id, std::string_view phc) {
  auto st = db_.prepare("UPDATE users SET password_hash = ?2 WHERE id = ?1");
  st.bind(1, user_id).bind(2, phc);
  st.run();
  record_hash_kind(phc);
}

std::vector<std::string> Users::password_hash_kinds() {
  auto st = db_.prepare("SELECT kind FROM password_hash_kinds ORDER BY kind");
  std::vector<std::string> kinds;
  while (st.step()) kinds.push_back(st.text(0));
  return kinds;
}

std::vector<HashKindCost> Users::hash_kind_costs() {
  auto st = db_.prepare(
      "SELECT kind, relative_cost_milli, cost_basis FROM password_hash_kinds ORDER BY kind");
  std::vector<HashKindCost> kinds;
  while (st.step()) {
    HashKindCost kind{st.text(0), std::nullopt, st.optional_text(2).value_or("")};
    if (auto milli = st.optional_integer(1))
      kind.relative_cost = static_cast<double>(*milli) / 1000;
    kinds.push_back(std::move(kind));
  }
  return kinds;
}

void Users::set_hash_kind_cost(std::string_view kind, std::string_view basis,
                               double relative_cost) {
  auto st = db_.prepare(
      "UPDATE password_hash_kinds SET relative_cost_milli = ?2, cost_basis = ?3 WHERE kind = ?1");
  st.bind(1, kind).bind(2, cost_milli(relative_cost)).bind(3, basis);
  st.run();
}

// SQLite's single writer: nothing else writes while this transaction reads.
std::vector<std::string> Users::reconcile_hash_kinds() {
  std::set<std::string> in_use;
  auto hashes = db_.prepare("SELECT password_hash FROM users WHERE password_hash IS NOT NULL");
  while (hashes.step())
    if (auto kind = password_hash_kind(hashes.text(0))) in_use.insert(std::move(*kind));
  std::vector<std::string> dropped;
  for (const std::string& listed : password_hash_kinds()) {
    if (in_use.erase(listed) != 0) continue;
    auto drop = db_.prepare("DELETE FROM password_hash_kinds WHERE kind = ?1");
    drop.bind(1, listed);
    drop.run();
    dropped.push_back(listed);
  }
  for (const std::string& missing : in_use) {
    auto add = db_.prepare(
        "INSERT INTO password_hash_kinds (kind) VALUES (?1) ON CONFLICT (kind) DO NOTHING");
    add.bind(1, missing);
    add.run();
  }
  return dropped;
}

std::vector<UserRecord> Users::page_after(std::string_view after, int limit) {
  auto st =
      db_.prepare("SELECT " AUTHD_USER_COLUMNS " FROM users WHERE id > ?1 ORDER BY id LIMIT ?2");
  st.bind(1, after).bind(2, static_cast<std::int64_t>(limit));
  std::vector<UserRecord> users;
  while (st.step()) users.push_back(read_user(st));
  return users;
}

void Users::record_login(std::string_view user_id, Millis at) {
  auto st = db_.prepare("UPDATE users SET last_login_at = ?2 WHERE id = ?1");
  st.bind(1, user_id).bind(2, at);
  st.run();
}

bool Users::remove(std::string_view user_id) {
  auto st = db_.prepare("DELETE FROM users WHERE id = ?1");
  st.bind(1, user_id);
  st.run();
  return db_.changes() == 1;
}

// One statement that changes nothing when the kind is listed already.
void Users::record_hash_kind(std::string_view phc) {
  std::optional<std::string> kind = password_hash_kind(phc);
  if (!kind ||
      std::find(kinds_recorded_.begin(), kinds_recorded_.end(), *kind) != kinds_recorded_.end())
    return;
  kinds_recorded_.push_back(*kind);
  auto st = db_.prepare(
      "INSERT INTO password_hash_kinds (kind) VALUES (?1) ON CONFLICT (kind) DO NOTHING");
  st.bind(1, *kind);
  st.run();
}

}  // namespace authd::sqlite
