// How PostgreSQL stores sessions: one row per token digest, deleted when
// revoked or, once expired, by the pruner.
#include "store/postgres/connection.hpp"
#include "store/postgres/prune.hpp"
#include "store/postgres/read_pipeline.hpp"
#include "store/postgres/shared_sessions.hpp"
#include "store/postgres/transaction.hpp"
#include "store/session_columns.hpp"
#include "store/user_columns.hpp"

namespace authd::postgres {

void Sessions::insert(const SessionRecord& s) {
  Params params;
  params.digest(s.token_digest).text(s.user_id).integer(s.created_at).integer(s.expires_at);
  params.text(s.public_id).text(s.client_address).text(s.user_agent).text(s.amr);
  db_.run("INSERT INTO sessions (" AUTHD_SESSION_COLUMNS
          ") VALUES ($1, $2, $3, $4, $5, $6, $7, $8)",
          params);
}

std::optional<SessionRecord> Sessions::record_of(const Sha256Digest& digest) {
  Params params;
  params.digest(digest);
  Result rows = db_.run("SELECT " AUTHD_SESSION_COLUMNS
                        " FROM sessions WHERE token_digest = $1 AND revoked_at IS NULL",
                        params);
  if (rows.rows() == 0) return std::nullopt;
  return read_session(Row(rows, 0));
}

// In a batch of reads, the lookup shares one statement with the batch's
// others (shared_sessions.hpp).
std::optional<SessionUser> Sessions::user_of(const Sha256Digest& digest) {
  PipelineTurns* batch = locking_ ? nullptr : db_.read_batch();
  if (batch != nullptr) return batch->shared_sessions().user_of(db_, *batch, digest);
  return SharedSessions::user_of_alone(db_, digest, locking_);
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

// In a batch of logouts, the DELETE is shared with the batch's others
// (shared_sessions.hpp).
std::optional<UserRecord> Sessions::revoke_live(const Sha256Digest& digest, Millis now) {
  if (PipelineTurns* batch = db_.transaction_batch())
    return batch->shared_sessions().revoke_live(db_, *batch, digest, now);
  return SharedSessions::revoke_live_alone(db_, digest, now);
}

void Sessions::delete_of_user(std::string_view user_id) {
  Params params;
  params.text(user_id);
  db_.run("DELETE FROM sessions WHERE user_id = $1", params);
}

// Through sessions_by_user, as on SQLite: a public id is only ever looked
// up among one user's sessions. Revoked rows are gone already; the
// revoked_at test keeps the meaning if a later release marks instead.
std::vector<SessionRecord> Sessions::list_live_of_user(std::string_view user_id, Millis now) {
  Params params;
  params.text(user_id).integer(now);
  Result rows = db_.run("SELECT " AUTHD_SESSION_COLUMNS
                        " FROM sessions WHERE user_id = $1 AND revoked_at IS NULL"
                        " AND expires_at > $2 ORDER BY created_at DESC, public_id DESC",
                        params);
  std::vector<SessionRecord> sessions;
  sessions.reserve(static_cast<std::size_t>(rows.rows()));
  for (int i = 0; i < rows.rows(); ++i) sessions.push_back(read_session(Row(rows, i)));
  return sessions;
}

// Deletes, as revoke() does, so that an instance of an older release never
// finds the session again.
bool Sessions::revoke_by_public_id_of_user(std::string_view user_id, std::string_view public_id,
                                           Millis now) {
  Params params;
  params.text(user_id).text(public_id).integer(now);
  return db_.run(
                "DELETE FROM sessions WHERE user_id = $1 AND public_id = $2"
                " AND revoked_at IS NULL AND expires_at > $3",
                params)
             .affected() == 1;
}

std::optional<std::string> Sessions::revoke_by_public_id(std::string_view public_id, Millis now) {
  Params params;
  params.text(public_id).integer(now);
  Result rows = db_.run(
      "DELETE FROM sessions WHERE public_id = $1 AND revoked_at IS NULL AND expires_at > $2 "
      "RETURNING user_id",
      params);
  if (rows.rows() == 0) return std::nullopt;
  return rows.text(0, 0);
}

std::int64_t Sessions::revoke_others_of_user(std::string_view user_id, const Sha256Digest& kept,
                                             Millis now) {
  Params params;
  params.text(user_id).digest(kept).integer(now);
  return db_
      .run(
          "DELETE FROM sessions WHERE user_id = $1 AND token_digest <> $2"
          " AND revoked_at IS NULL AND expires_at > $3",
          params)
      .affected();
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
  return db_.run(AUTHD_PRUNE("sessions", "expires_at <= $1"), params).affected();
}

}  // namespace authd::postgres
