// How PostgreSQL stores password-reset tokens: one row per user at most
// (a unique user_id), keyed by the token's digest.
#include "store/postgres/connection.hpp"
#include "store/postgres/prune.hpp"
#include "store/postgres/transaction.hpp"

namespace authd::postgres {

void ResetTokens::replace(const ResetTokenRecord& t) {
  // One statement, so that two workers minting for one user at once
  // cannot both pass a DELETE and then collide on the INSERT.
  Params params;
  params.digest(t.token_digest).text(t.user_id).integer(t.created_at).integer(t.expires_at);
  db_.run(
      "INSERT INTO reset_tokens (token_digest, user_id, created_at, expires_at) "
      "VALUES ($1, $2, $3, $4) ON CONFLICT (user_id) DO UPDATE SET "
      "token_digest = EXCLUDED.token_digest, created_at = EXCLUDED.created_at, "
      "expires_at = EXCLUDED.expires_at",
      params);
}

std::optional<ResetTokenRecord> ResetTokens::by_digest(const Sha256Digest& digest) {
  Params params;
  params.digest(digest);
  if (locking_) {
    // Lock order: the user's row, then the token's, as every other writer
    // of tokens does (minting, set-password), so that no two writers can
    // wait on each other in a cycle. After the wait the token is read
    // again: a concurrent reset may have used it meanwhile.
    Result owner = db_.run("SELECT user_id FROM reset_tokens WHERE token_digest = $1", params);
    if (owner.rows() == 0) return std::nullopt;
    Params user;
    user.text(owner.text(0, 0));
    db_.run("SELECT 1 FROM users WHERE id = $1 FOR UPDATE", user);
  }
  Result rows = locking_ ? db_.run(
                               "SELECT token_digest, user_id, created_at, expires_at "
                               "FROM reset_tokens WHERE token_digest = $1 FOR UPDATE",
                               params)
                         : db_.run(
                               "SELECT token_digest, user_id, created_at, expires_at "
                               "FROM reset_tokens WHERE token_digest = $1",
                               params);
  if (rows.rows() == 0) return std::nullopt;
  return ResetTokenRecord{rows.digest(0, 0), rows.text(0, 1), rows.integer(0, 2),
                          rows.integer(0, 3)};
}

void ResetTokens::delete_of_user(std::string_view user_id) {
  Params params;
  params.text(user_id);
  db_.run("DELETE FROM reset_tokens WHERE user_id = $1", params);
}

std::int64_t ResetTokens::prune(Millis now) {
  Params params;
  params.integer(now);
  return db_.run(AUTHD_PRUNE("reset_tokens", "expires_at <= $1"), params).affected();
}

}  // namespace authd::postgres
