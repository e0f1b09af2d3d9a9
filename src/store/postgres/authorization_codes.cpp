// How PostgreSQL stores the authorization codes (interface.md 17.6): keyed
// by the code's digest. In a write transaction the code is read FOR UPDATE,
// so that of two concurrent exchanges the second waits and then sees the
// first's used_at; mark_used is one conditional UPDATE (READ COMMITTED
// re-checks its WHERE after the lock), so only one of them marks it. The
// code's user row is locked before it, in the same statement
// (AUTHD_LOCK_OWNER_THEN): an erasure holds that row while it deletes the
// user's codes. Codes are kept past expiry until keep_until so that a
// reuse is still recognized.
#include "store/oauth_columns.hpp"
#include "store/postgres/connection.hpp"
#include "store/postgres/prune.hpp"
#include "store/postgres/transaction.hpp"

namespace authd::postgres {

void AuthorizationCodes::insert(const AuthorizationCodeRecord& c) {
  Params params;
  params.digest(c.code_digest).text(c.client_id).text(c.user_id).text(c.redirect_uri);
  params.text(c.scope).text(c.nonce).text(c.code_challenge).digest(c.session_digest);
  params.text(c.session_public_id).integer(c.auth_time).text(c.amr);
  params.integer(c.created_at).integer(c.expires_at).integer(c.used_at).integer(c.keep_until);
  params.text(null_if_empty(c.resource));
  db_.run("INSERT INTO oauth_codes (" AUTHD_OAUTH_CODE_COLUMNS
          ") VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16)",
          params);
}

std::optional<AuthorizationCodeRecord> AuthorizationCodes::by_digest(const Sha256Digest& digest) {
  Params params;
  params.digest(digest);
  Result rows =
      locking_
          ? db_.run(AUTHD_LOCK_OWNER_THEN("oauth_codes", "code_digest") AUTHD_OAUTH_CODE_COLUMNS
                    " FROM oauth_codes, owner WHERE code_digest = $1 "
                    "FOR UPDATE OF oauth_codes",
                    params)
          : db_.run("SELECT " AUTHD_OAUTH_CODE_COLUMNS " FROM oauth_codes WHERE code_digest = $1",
                    params);
  if (rows.rows() == 0) return std::nullopt;
  return read_authorization_code(Row(rows, 0));
}

bool AuthorizationCodes::mark_used(const Sha256Digest& digest, Millis now) {
  Params params;
  params.digest(digest).integer(now);
  return db_.run("UPDATE oauth_codes SET used_at = $2 WHERE code_digest = $1 AND used_at IS NULL",
                 params)
             .affected() == 1;
}

void AuthorizationCodes::delete_of_user(std::string_view user_id) {
  Params params;
  params.text(user_id);
  db_.run("DELETE FROM oauth_codes WHERE user_id = $1", params);
}

// Under the user's lock (the withdrawal holds it, and every writer of the
// user's codes takes it first): one DELETE sees them all.
void AuthorizationCodes::delete_of_user_and_client(std::string_view user_id,
                                                   std::string_view client_id) {
  Params params;
  params.text(user_id).text(client_id);
  db_.run("DELETE FROM oauth_codes WHERE user_id = $1 AND client_id = $2", params);
}

std::int64_t AuthorizationCodes::prune(Millis now) {
  Params params;
  params.integer(now);
  return db_.run(AUTHD_PRUNE("oauth_codes", "keep_until <= $1"), params).affected();
}

}  // namespace authd::postgres
