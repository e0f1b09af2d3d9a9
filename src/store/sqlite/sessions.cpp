// How SQLite stores sessions: one row per token digest, marked when
// revoked, deleted by the pruner once expired.
#include "store/session_columns.hpp"
#include "store/sqlite/connection.hpp"
#include "store/sqlite/prune.hpp"
#include "store/sqlite/transaction.hpp"
#include "store/user_columns.hpp"

namespace authd::sqlite {

void Sessions::insert(const SessionRecord& s) {
  auto st = db_.prepare("INSERT INTO sessions (" AUTHD_SESSION_COLUMNS
                        ") VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)");
  st.bind(1, s.token_digest).bind(2, s.user_id).bind(3, s.created_at).bind(4, s.expires_at);
  st.bind(5, s.public_id).bind(6, s.client_address).bind(7, s.user_agent).bind(8, s.amr);
  st.run();
}

std::optional<SessionRecord> Sessions::record_of(const Sha256Digest& digest) {
  auto st = db_.prepare("SELECT " AUTHD_SESSION_COLUMNS
                        " FROM sessions WHERE token_digest = ?1 AND revoked_at IS NULL");
  st.bind(1, digest);
  if (!st.step()) return std::nullopt;
  return read_session(st);
}

std::optional<SessionUser> Sessions::user_of(const Sha256Digest& digest) {
  auto st = db_.prepare(AUTHD_SESSION_USER_SQL("?1"));
  st.bind(1, digest);
  if (!st.step()) return std::nullopt;
  return SessionUser{read_user(st), st.integer(kSessionExpiresColumn)};
}

// A mark, not a DELETE: it rewrites one b-tree page where a DELETE also
// rewrites a page of each of the two session indexes, and the single writer
// appends every dirty page to the WAL
// (docs/design/performance-choices.md#logout-marks-the-session).
bool Sessions::revoke(const Sha256Digest& digest, Millis now) {
  auto st = db_.prepare(
      "UPDATE sessions SET revoked_at = ?2 WHERE token_digest = ?1 AND revoked_at IS NULL");
  st.bind(1, digest).bind(2, now);
  st.run();
  return db_.changes() == 1;
}

std::optional<UserRecord> Sessions::revoke_live(const Sha256Digest& digest, Millis now) {
  std::optional<SessionUser> found = user_of(digest);
  if (!found || found->expires_at <= now || found->user.disabled) return std::nullopt;
  revoke(digest, now);
  return std::move(found->user);
}

void Sessions::delete_of_user(std::string_view user_id) {
  auto st = db_.prepare("DELETE FROM sessions WHERE user_id = ?1");
  st.bind(1, user_id);
  st.run();
}

// The user's sessions through sessions_by_user: no index on public_id,
// which would cost every login one more index page in the WAL; a public id
// is only ever looked up among one user's sessions.
std::vector<SessionRecord> Sessions::list_live_of_user(std::string_view user_id, Millis now) {
  auto st = db_.prepare("SELECT " AUTHD_SESSION_COLUMNS
                        " FROM sessions WHERE user_id = ?1 AND revoked_at IS NULL"
                        " AND expires_at > ?2 ORDER BY created_at DESC, public_id DESC");
  st.bind(1, user_id).bind(2, now);
  std::vector<SessionRecord> sessions;
  while (st.step()) sessions.push_back(read_session(st));
  return sessions;
}

bool Sessions::revoke_by_public_id_of_user(std::string_view user_id, std::string_view public_id,
                                           Millis now) {
  auto st = db_.prepare(
      "UPDATE sessions SET revoked_at = ?3 WHERE user_id = ?1 AND public_id = ?2"
      " AND revoked_at IS NULL AND expires_at > ?3");
  st.bind(1, user_id).bind(2, public_id).bind(3, now);
  st.run();
  return db_.changes() == 1;
}

std::optional<std::string> Sessions::revoke_by_public_id(std::string_view public_id, Millis now) {
  auto st = db_.prepare(
      "UPDATE sessions SET revoked_at = ?2 WHERE public_id = ?1"
      " AND revoked_at IS NULL AND expires_at > ?2 RETURNING user_id");
  st.bind(1, public_id).bind(2, now);
  if (!st.step()) return std::nullopt;
  std::string user_id = st.text(0);
  while (st.step()) {
  }  // RETURNING: the update completes only once every row is stepped through
  return user_id;
}

std::int64_t Sessions::revoke_others_of_user(std::string_view user_id, const Sha256Digest& kept,
                                             Millis now) {
  auto st = db_.prepare(
      "UPDATE sessions SET revoked_at = ?3 WHERE user_id = ?1 AND token_digest <> ?2"
      " AND revoked_at IS NULL AND expires_at > ?3");
  st.bind(1, user_id).bind(2, kept).bind(3, now);
  st.run();
  return db_.changes();
}

// Unexpired minus unexpired-and-revoked: both counts read an index alone
// (sessions_by_expiry, sessions_revoked); a filter on revoked_at would
// visit every row (7 ms against 120 ms for 170,000 sessions).
std::int64_t Sessions::live_count(Millis now) {
  auto st = db_.prepare(
      "SELECT (SELECT count(*) FROM sessions WHERE expires_at > ?1)"
      " - (SELECT count(*) FROM sessions WHERE revoked_at IS NOT NULL AND expires_at > ?1)");
  st.bind(1, now);
  st.step();
  return st.integer(0);
}

// A revoked session's row stays until its expiry has passed too, and then
// goes with the others.
std::int64_t Sessions::prune(Millis now) {
  auto st = db_.prepare(AUTHD_PRUNE("sessions", "token_digest", "expires_at <= ?1"));
  st.bind(1, now);
  st.run();
  return db_.changes();
}

}  // namespace authd::sqlite
