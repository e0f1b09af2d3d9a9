// How PostgreSQL stores the opaque access tokens (interface.md 17.9): keyed
// by the token's digest, found with their user in one statement, revoked by
// deletion (one, or by grant, user, or user and client), pruned once expired.
#include "store/oauth_columns.hpp"
#include "store/postgres/connection.hpp"
#include "store/postgres/transaction.hpp"
#include "store/user_columns.hpp"

namespace authd::postgres {

void AccessTokens::insert(const AccessTokenRecord& t) {
  Params params;
  params.digest(t.token_digest).text(t.client_id).text(t.user_id).text(t.scope);
  params.digest(t.grant_digest).text(t.session_public_id).integer(t.created_at);
  params.integer(t.expires_at);
  db_.run("INSERT INTO oauth_access_tokens (" AUTHD_OAUTH_TOKEN_COLUMNS
          ") VALUES ($1, $2, $3, $4, $5, $6, $7, $8)",
          params);
}

// The user's columns first (read_user reads from 0), the token's after; the
// subquery renames the token's created_at away from the user's.
std::optional<AccessTokenUser> AccessTokens::live_with_user(const Sha256Digest& digest,
                                                            Millis now) {
  Params params;
  params.digest(digest).integer(now);
  Result rows = db_.run("SELECT " AUTHD_USER_COLUMNS ", " AUTHD_OAUTH_TOKEN_COLUMNS_AS_JOINED
                        " FROM users JOIN (SELECT " AUTHD_OAUTH_TOKEN_COLUMNS_RENAMED
                        " FROM oauth_access_tokens WHERE token_digest = $1 AND expires_at > $2)"
                        " AS t ON users.id = t.user_id",
                        params);
  if (rows.rows() == 0) return std::nullopt;
  Row row(rows, 0);
  return AccessTokenUser{read_access_token(row, kUserColumnCount), read_user(row)};
}

bool AccessTokens::revoke(const Sha256Digest& digest) {
  Params params;
  params.digest(digest);
  return db_.run("DELETE FROM oauth_access_tokens WHERE token_digest = $1", params).affected() == 1;
}

std::int64_t AccessTokens::revoke_of_grant(const Sha256Digest& grant_digest) {
  Params params;
  params.digest(grant_digest);
  return db_.run("DELETE FROM oauth_access_tokens WHERE grant_digest = $1", params).affected();
}

std::int64_t AccessTokens::revoke_of_user(std::string_view user_id) {
  Params params;
  params.text(user_id);
  return db_.run("DELETE FROM oauth_access_tokens WHERE user_id = $1", params).affected();
}

std::int64_t AccessTokens::revoke_of_user_and_client(std::string_view user_id,
                                                     std::string_view client_id) {
  Params params;
  params.text(user_id).text(client_id);
  return db_.run("DELETE FROM oauth_access_tokens WHERE user_id = $1 AND client_id = $2", params)
      .affected();
}

std::int64_t AccessTokens::prune(Millis now) {
  Params params;
  params.integer(now);
  return db_.run("DELETE FROM oauth_access_tokens WHERE expires_at <= $1", params).affected();
}

}  // namespace authd::postgres
