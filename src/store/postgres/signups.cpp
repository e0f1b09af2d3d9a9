// How PostgreSQL stores pending sign-ups: one row per address at most (a
// unique email), keyed by the verification token's digest.
#include "store/postgres/connection.hpp"
#include "store/postgres/prune.hpp"
#include "store/postgres/transaction.hpp"

namespace authd::postgres {
namespace {

#define AUTHD_SELECT_SIGNUPS                                                                     \
  "SELECT token_digest, email, password_hash, display_name, created_at, expires_at, request_id " \
  "FROM signups WHERE "

std::optional<PendingSignupRecord> read_signup(const Result& rows) {
  if (rows.rows() == 0) return std::nullopt;
  return PendingSignupRecord{rows.digest(0, 0),        rows.text(0, 1),    rows.text(0, 2),
                             rows.optional_text(0, 3), rows.integer(0, 4), rows.integer(0, 5),
                             rows.integer(0, 6)};
}

}  // namespace

void Signups::replace(const PendingSignupRecord& s) {
  // One statement, so that two workers minting for one address at once
  // cannot both pass a DELETE and then collide on the INSERT.
  Params params;
  params.digest(s.token_digest).text(s.email).text(s.password_hash).text(s.display_name);
  params.integer(s.created_at).integer(s.expires_at).integer(s.request_id);
  db_.run(
      "INSERT INTO signups (token_digest, email, password_hash, display_name, created_at, "
      "expires_at, request_id) VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT (email) DO UPDATE "
      "SET token_digest = EXCLUDED.token_digest, password_hash = EXCLUDED.password_hash, "
      "display_name = EXCLUDED.display_name, created_at = EXCLUDED.created_at, "
      "expires_at = EXCLUDED.expires_at, request_id = EXCLUDED.request_id",
      params);
}

std::optional<PendingSignupRecord> Signups::by_digest(const Sha256Digest& digest) {
  Params params;
  params.digest(digest);
  // Locked in a write transaction: a concurrent verification with the same
  // token waits, then finds the row gone (READ COMMITTED reads it again).
  // Lock order: this row, then the address's entry in the users' e-mail
  // index (verification inserts the account after this); the worker locks
  // a user row only when the address has an account, and then writes no
  // sign-up, so no cycle can form.
  Result rows = locking_ ? db_.run(AUTHD_SELECT_SIGNUPS "token_digest = $1 FOR UPDATE", params)
                         : db_.run(AUTHD_SELECT_SIGNUPS "token_digest = $1", params);
  return read_signup(rows);
}

std::optional<PendingSignupRecord> Signups::by_email(std::string_view email) {
  Params params;
  params.text(email);
  return read_signup(db_.run(AUTHD_SELECT_SIGNUPS "email = $1", params));
}

void Signups::remove(const Sha256Digest& digest) {
  Params params;
  params.digest(digest);
  db_.run("DELETE FROM signups WHERE token_digest = $1", params);
}

void Signups::remove_of_email(std::string_view email) {
  Params params;
  params.text(email);
  db_.run("DELETE FROM signups WHERE email = $1", params);
}

std::int64_t Signups::prune(Millis now) {
  Params params;
  params.integer(now);
  return db_.run(AUTHD_PRUNE("signups", "expires_at <= $1"), params).affected();
}

}  // namespace authd::postgres
