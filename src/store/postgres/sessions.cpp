// How PostgreSQL stores sessions: one row per token digest, deleted when
// revoked or, once expired, by the pruner.
#include "store/postgres/connection.hpp"
#include "store/postgres/transaction.hpp"
#include "store/user_columns.hpp"

namespace authd::postgres {

void Sessions::insert(const SessionRecord& s) {
  Params params;
  params.digest(s.token_digest).text(s.user_id).integer(s.created_at).integer(s.expires_at);
  db_.run(
      "INSERT INTO sessions (token_digest, user_id, created_at, expires_at) "
      "VALUES ($1, $2, $3, $4)",
      params);
}

std::optional<SessionUser> Sessions::user_of(const Sha256Digest& digest) {
  Params params;
  params.digest(digest);
  Result rows = locking_ ? db_.run(AUTHD_SESSION_USER_SQL("$1") " FOR UPDATE OF users", params)
                         : db_.run(AUTHD_SESSION_USER_SQL("$1"), params);
  if (rows.rows() == 0) return std::nullopt;
  Row row(rows, 0);
  return SessionUser{read_user(row), row.integer(kSessionExpiresColumn)};
}

// A DELETE, not SQLite's mark: during a rolling upgrade an instance of a
// release before migration 2 reads sessions without looking at revoked_at,
// and must not find a logged-out token. (PostgreSQL's DELETE writes no index
// entries, so the mark would save little here.)
bool Sessions::revoke(const Sha256Digest& digest, Millis /*now*/) {
  Params params;
  params.digest(digest);
  return db_.run("DELETE FROM sessions WHERE token_digest = $1", params).affected() == 1;
}

void Sessions::delete_of_user(std::string_view user_id) {
  Params params;
  params.text(user_id);
  db_.run("DELETE FROM sessions WHERE user_id = $1", params);
}

std::int64_t Sessions::live_count(Millis now) {
  Params params;
  params.integer(now);
  return db_
      .run("SELECT count(*) FROM sessions WHERE expires_at > $1 AND revoked_at IS NULL", params)
      .integer(0, 0);
}

std::int64_t Sessions::prune(Millis now) {
  Params params;
  params.integer(now);
  return db_.run("DELETE FROM sessions WHERE expires_at <= $1", params).affected();
}

}  // namespace authd::postgres
