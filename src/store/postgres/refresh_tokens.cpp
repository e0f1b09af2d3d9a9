// How PostgreSQL stores the refresh tokens (interface.md 17.10): keyed by
// the token's digest, grouped by family (the authorization code's digest).
// In a write transaction a token is read FOR UPDATE, so that of two
// concurrent rotations (on one instance or several) the second waits and
// then sees the first's used_at; mark_used is one conditional UPDATE (READ
// COMMITTED re-checks its WHERE after the lock), so only one marks it. Its
// user's row is locked first, in the same statement
// (AUTHD_LOCK_OWNER_THEN, transaction.hpp's order): a password change or a
// disable holds that row while it deletes the user's tokens, and a rotation
// holding its token while waiting for the user would deadlock with it.
// Pruned once the family's absolute lifetime has passed.
//
// A revocation (a family, a user's, a client's) deletes until a DELETE
// finds nothing: a rotation in flight holds its token's row, and the first
// DELETE waits for it; the next token that rotation then commits is not in
// that statement's snapshot (READ COMMITTED), and would outlive the
// revocation (a reuse that leaves the thief's newest token live). The next
// DELETE, a statement of its own, sees it; one that finds no row found no
// row a rotation could hold, and a rotation that waits on a deleted row
// then finds no token.
#include <optional>
#include <string>

#include "store/oauth_columns.hpp"
#include "store/postgres/connection.hpp"
#include "store/postgres/prune.hpp"
#include "store/postgres/transaction.hpp"

namespace authd::postgres {

namespace {

// An empty resource is the issuer: stored as NULL.
std::optional<std::string> resource_column(const std::string& resource) {
  if (resource.empty()) return std::nullopt;
  return resource;
}

}  // namespace

void RefreshTokens::insert(const RefreshTokenRecord& t) {
  Params params;
  params.digest(t.token_digest).digest(t.family_digest).text(t.client_id).text(t.user_id);
  params.text(t.scope).text(resource_column(t.resource)).text(t.session_public_id);
  params.integer(t.auth_time).text(t.amr).integer(t.created_at).integer(t.expires_at);
  params.integer(t.family_expires_at).integer(t.used_at);
  db_.run("INSERT INTO oauth_refresh_tokens (" AUTHD_OAUTH_REFRESH_COLUMNS
          ") VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)",
          params);
}

std::optional<RefreshTokenRecord> RefreshTokens::by_digest(const Sha256Digest& digest) {
  Params params;
  params.digest(digest);
  Result rows = locking_ ? db_.run(AUTHD_LOCK_OWNER_THEN("oauth_refresh_tokens", "token_digest")
                                       AUTHD_OAUTH_REFRESH_COLUMNS
                                   " FROM oauth_refresh_tokens, owner WHERE token_digest = $1 "
                                   "FOR UPDATE OF oauth_refresh_tokens",
                                   params)
                         : db_.run("SELECT " AUTHD_OAUTH_REFRESH_COLUMNS
                                   " FROM oauth_refresh_tokens WHERE token_digest = $1",
                                   params);
  if (rows.rows() == 0) return std::nullopt;
  return read_refresh_token(Row(rows, 0));
}

bool RefreshTokens::mark_used(const Sha256Digest& digest, Millis now) {
  Params params;
  params.digest(digest).integer(now);
  return db_.run(
                "UPDATE oauth_refresh_tokens SET used_at = $2 "
                "WHERE token_digest = $1 AND used_at IS NULL",
                params)
             .affected() == 1;
}

std::int64_t RefreshTokens::revoke_family(const Sha256Digest& family_digest) {
  Params params;
  params.digest(family_digest);
  return db_.delete_until_none("DELETE FROM oauth_refresh_tokens WHERE family_digest = $1", params);
}

std::int64_t RefreshTokens::revoke_of_user(std::string_view user_id) {
  Params params;
  params.text(user_id);
  return db_.delete_until_none("DELETE FROM oauth_refresh_tokens WHERE user_id = $1", params);
}

std::int64_t RefreshTokens::revoke_of_user_and_client(std::string_view user_id,
                                                      std::string_view client_id) {
  Params params;
  params.text(user_id).text(client_id);
  return db_.delete_until_none(
      "DELETE FROM oauth_refresh_tokens WHERE user_id = $1 AND client_id = $2", params);
}

std::int64_t RefreshTokens::revoke_of_client(std::string_view client_id) {
  Params params;
  params.text(client_id);
  return db_.delete_until_none("DELETE FROM oauth_refresh_tokens WHERE client_id = $1", params);
}

std::int64_t RefreshTokens::prune(Millis now) {
  Params params;
  params.integer(now);
  return db_.run(AUTHD_PRUNE("oauth_refresh_tokens", "family_expires_at <= $1"), params).affected();
}

}  // namespace authd::postgres
