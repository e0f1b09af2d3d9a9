// How PostgreSQL stores users and the kinds of their password hashes.
#include <algorithm>
#include <set>

#include "crypto/hash_kind.hpp"
#include "store/postgres/connection.hpp"
#include "store/postgres/transaction.hpp"
#include "store/user_columns.hpp"

namespace authd::postgres {
namespace {

// Parameters $2 to $9: the columns that an update may change.
Params& add_user_fields(Params& params, const UserRecord& u) {
  return params.text(u.email)
      .text(u.password_hash)
      .text(u.phone)
      .text(u.photo_url)
      .text(u.display_name)
      .integer(u.email_verified_at)
      .integer(u.phone_verified_at)
      .boolean(u.disabled);
}

std::optional<UserRecord> first_user(const Result& rows) {
  if (rows.rows() == 0) return std::nullopt;
  return read_user(Row(rows, 0));
}

}  // namespace

std::optional<UserRecord> Users::by_email(std::string_view email) {
  Params params;
  params.text(email);
  return first_user(
      locking_
          ? db_.run("SELECT " AUTHD_USER_COLUMNS " FROM users WHERE email = $1 FOR UPDATE", params)
          : db_.run("SELECT " AUTHD_USER_COLUMNS " FROM users WHERE email = $1", params));
}

bool Users::email_taken(std::string_view email) {
  Params params;
  params.text(email);
  return db_.run("SELECT 1 FROM users WHERE email = $1", params).rows() > 0;
}

std::optional<std::string> Users::email_of(std::string_view id) {
  Params params;
  params.text(id);
  Result rows = db_.run("SELECT email FROM users WHERE id = $1", params);
  if (rows.rows() == 0) return std::nullopt;
  return rows.text(0, 0);
}

HeldAccounts Users::lock_in_id_order_unless_held(std::span<const std::string> emails,
                                                 std::span<const std::string> ids) {
  HeldAccounts held;
  if (!locking_ || (emails.empty() && ids.empty())) return held;
  Params params;
  params.text_array(emails).text_array(ids);
  Result locked = db_.run(
      "SELECT id FROM users WHERE email = ANY($1::text[]) OR id = ANY($2::text[]) "
      "ORDER BY id FOR UPDATE SKIP LOCKED",
      params);
  std::vector<std::string> locked_ids;
  locked_ids.reserve(static_cast<std::size_t>(locked.rows()));
  for (int i = 0; i < locked.rows(); ++i) locked_ids.push_back(Row(locked, i).text(0));
  // Those it skipped: the accounts it sees and did not lock. One created
  // meanwhile shows here too, and its mails only wait a little longer.
  params.text_array(locked_ids);
  Result others = db_.run(
      "SELECT id, email FROM users WHERE (email = ANY($1::text[]) OR id = ANY($2::text[])) "
      "AND id <> ALL($3::text[])",
      params);
  for (int i = 0; i < others.rows(); ++i) {
    held.ids.push_back(Row(others, i).text(0));
    held.emails.push_back(Row(others, i).text(1));
  }
  return held;
}

std::optional<UserRecord> Users::by_id(std::string_view id) {
  Params params;
  params.text(id);
  return first_user(
      locking_
          ? db_.run("SELECT " AUTHD_USER_COLUMNS " FROM users WHERE id = $1 FOR UPDATE", params)
          : db_.run("SELECT " AUTHD_USER_COLUMNS " FROM users WHERE id = $1", params));
}

bool Users::insert(const UserRecord& u) {
  Params params;
  params.text(u.id);
  add_user_fields(params, u).integer(u.created_at).integer(u.updated_at).integer(u.last_login_at);
  bool inserted = db_.run("INSERT INTO users (" AUTHD_USER_COLUMNS
                          ") VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12) "
                          "ON CONFLICT (email) DO NOTHING",
                          params)
                      .affected() == 1;
  if (inserted && u.password_hash) record_hash_kind(*u.password_hash);
  return inserted;
}

void Users::update(const UserRecord& u) {
  Params params;
  params.text(u.id);
  add_user_fields(params, u).integer(u.updated_at);
  db_.run(
      "UPDATE users SET email = $2, password_hash = $3, phone = $4, photo_url = $5, "
      "display_name = $6, email_verified_at = $7, phone_verified_at = $8, disabled = $9, "
      "updated_at = $10 WHERE id = $1",
      params);
  if (u.password_hash) record_hash_kind(*u.password_hash);
}

// Under READ COMMITTED a concurrent insert or change to the same address
// is invisible until it commits, and then breaks the unique index here: a
// savepoint keeps the transaction usable, and the answer is "taken".
bool Users::update_unless_email_taken(const UserRecord& u) {
  db_.execute("SAVEPOINT email_change");
  try {
    update(u);
  } catch (const UniqueViolation&) {
    db_.execute("ROLLBACK TO SAVEPOINT email_change");
    return false;
  }
  db_.execute("RELEASE SAVEPOINT email_change");
  return true;
}

void Users::replace_password_hash(std::string_view user_id, std::string_view phc) {
  Params params;
  params.text(user_id).text(phc);
  db_.run("UPDATE users SET password_hash = $2 WHERE id = $1", params);
  record_hash_kind(phc);
}

std::vector<std::string> Users::password_hash_kinds() {
  Result rows = db_.run("SELECT kind FROM password_hash_kinds ORDER BY kind");
  std::vector<std::string> kinds;
  kinds.reserve(static_cast<std::size_t>(rows.rows()));
  for (int i = 0; i < rows.rows(); ++i) kinds.push_back(rows.text(i, 0));
  return kinds;
}

std::vector<HashKindCost> Users::hash_kind_costs() {
  Result rows = db_.run(
      "SELECT kind, relative_cost_milli, cost_basis FROM password_hash_kinds ORDER BY kind");
  std::vector<HashKindCost> kinds;
  for (int i = 0; i < rows.rows(); ++i) {
    HashKindCost kind{rows.text(i, 0), std::nullopt, rows.optional_text(i, 2).value_or("")};
    if (auto milli = rows.optional_integer(i, 1))
      kind.relative_cost = static_cast<double>(*milli) / 1000;
    kinds.push_back(std::move(kind));
  }
  return kinds;
}

void Users::set_hash_kind_cost(std::string_view kind, std::string_view basis,
                               double relative_cost) {
  Params params;
  params.text(kind).integer(cost_milli(relative_cost)).text(basis);
  db_.run(
      "UPDATE password_hash_kinds SET relative_cost_milli = $2, cost_basis = $3 WHERE kind = $1",
      params);
}

// Every hash write lists its kind (an INSERT into password_hash_kinds), so
// this lock waits for the writes in flight to commit, and holds back new
// ones until this transaction commits: the read below misses none.
std::vector<std::string> Users::reconcile_hash_kinds() {
  db_.execute("LOCK TABLE password_hash_kinds IN SHARE ROW EXCLUSIVE MODE");
  std::set<std::string> in_use;
  Result hashes = db_.run("SELECT password_hash FROM users WHERE password_hash IS NOT NULL");
  for (int i = 0; i < hashes.rows(); ++i)
    if (auto kind = password_hash_kind(hashes.text(i, 0))) in_use.insert(std::move(*kind));
  std::vector<std::string> dropped;
  for (const std::string& listed : password_hash_kinds()) {
    if (in_use.erase(listed) != 0) continue;
    Params params;
    params.text(listed);
    db_.run("DELETE FROM password_hash_kinds WHERE kind = $1", params);
    dropped.push_back(listed);
  }
  for (const std::string& missing : in_use) {
    Params params;
    params.text(missing);
    db_.run("INSERT INTO password_hash_kinds (kind) VALUES ($1) ON CONFLICT (kind) DO NOTHING",
            params);
  }
  return dropped;
}

// Ids compare byte by byte ("C" collation, whatever the database's), the
// order of the UUIDv7's hexadecimal digits, so the listing is creation
// order; migration 6 indexes the ids in that collation.
std::vector<UserRecord> Users::page_after(std::string_view after, int limit) {
  Params params;
  params.text(after).integer(limit);
  Result rows =
      db_.run("SELECT " AUTHD_USER_COLUMNS
              " FROM users WHERE id COLLATE \"C\" > $1 ORDER BY id COLLATE \"C\" LIMIT $2",
              params);
  std::vector<UserRecord> users;
  users.reserve(static_cast<std::size_t>(rows.rows()));
  for (int i = 0; i < rows.rows(); ++i) users.push_back(read_user(Row(rows, i)));
  return users;
}

void Users::record_login(std::string_view user_id, Millis at) {
  Params params;
  params.text(user_id).integer(at);
  db_.run("UPDATE users SET last_login_at = $2 WHERE id = $1", params);
}

bool Users::remove(std::string_view user_id) {
  Params params;
  params.text(user_id);
  return db_.run("DELETE FROM users WHERE id = $1", params).affected() == 1;
}

// One statement that changes nothing when the kind is listed already (a
// concurrent first insert of the same kind is waited for, then ignored).
void Users::record_hash_kind(std::string_view phc) {
  std::optional<std::string> kind = password_hash_kind(phc);
  if (!kind ||
      std::find(kinds_recorded_.begin(), kinds_recorded_.end(), *kind) != kinds_recorded_.end())
    return;
  kinds_recorded_.push_back(*kind);
  Params params;
  params.text(*kind);
  db_.run("INSERT INTO password_hash_kinds (kind) VALUES ($1) ON CONFLICT (kind) DO NOTHING",
          params);
}

}  // namespace authd::postgres
