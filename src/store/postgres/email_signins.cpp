// How PostgreSQL stores the live sign-in mails (interface.md 19.2): one row
// per user and per address at most (both unique), keyed by the token's
// digest.
#include "store/postgres/connection.hpp"
#include "store/postgres/prune.hpp"
#include "store/postgres/transaction.hpp"

namespace authd::postgres {
namespace {

// A row of the SELECTs below, in their columns' order.
EmailSignInRecord read_row(const Result& rows) {
  return EmailSignInRecord{rows.digest(0, 0),
                           rows.digest(0, 1),
                           rows.text(0, 2),
                           rows.text(0, 3),
                           rows.integer(0, 4),
                           rows.integer(0, 5),
                           static_cast<int>(rows.integer(0, 6))};
}

}  // namespace

void EmailSignIns::replace(const EmailSignInRecord& r) {
  // The address's row of another account first (the address changed hands
  // since its mail was minted); then one statement for the user's own, so
  // that two workers minting for one user at once cannot both pass a
  // DELETE and then collide on the INSERT.
  Params owner;
  owner.text(r.email).text(r.user_id);
  db_.run("DELETE FROM email_signins WHERE email = $1 AND user_id <> $2", owner);
  Params params;
  params.digest(r.token_digest).digest(r.code_digest).text(r.user_id).text(r.email);
  params.integer(r.created_at).integer(r.expires_at).integer(r.wrong_codes);
  db_.run(
      "INSERT INTO email_signins (token_digest, code_digest, user_id, email, created_at, "
      "expires_at, wrong_codes) VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT (user_id) DO "
      "UPDATE SET token_digest = EXCLUDED.token_digest, code_digest = EXCLUDED.code_digest, "
      "email = EXCLUDED.email, created_at = EXCLUDED.created_at, "
      "expires_at = EXCLUDED.expires_at, wrong_codes = EXCLUDED.wrong_codes",
      params);
}

std::optional<EmailSignInRecord> EmailSignIns::by_token(const Sha256Digest& digest) {
  Params params;
  params.digest(digest);
  Result rows = locking_ ? db_.run(
                               "SELECT token_digest, code_digest, user_id, email, created_at, "
                               "expires_at, wrong_codes FROM email_signins "
                               "WHERE token_digest = $1 FOR UPDATE",
                               params)
                         : db_.run(
                               "SELECT token_digest, code_digest, user_id, email, created_at, "
                               "expires_at, wrong_codes FROM email_signins "
                               "WHERE token_digest = $1",
                               params);
  if (rows.rows() == 0) return std::nullopt;
  return read_row(rows);
}

std::optional<EmailSignInRecord> EmailSignIns::by_email(std::string_view email) {
  Params params;
  params.text(email);
  Result rows = locking_ ? db_.run(
                               "SELECT token_digest, code_digest, user_id, email, created_at, "
                               "expires_at, wrong_codes FROM email_signins "
                               "WHERE email = $1 FOR UPDATE",
                               params)
                         : db_.run(
                               "SELECT token_digest, code_digest, user_id, email, created_at, "
                               "expires_at, wrong_codes FROM email_signins WHERE email = $1",
                               params);
  if (rows.rows() == 0) return std::nullopt;
  return read_row(rows);
}

int EmailSignIns::count_wrong_code(std::string_view email) {
  Params params;
  params.text(email);
  Result rows = db_.run(
      "UPDATE email_signins SET wrong_codes = wrong_codes + 1 WHERE email = $1 "
      "RETURNING wrong_codes",
      params);
  return rows.rows() == 0 ? 0 : static_cast<int>(rows.integer(0, 0));
}

void EmailSignIns::delete_of_user(std::string_view user_id) {
  Params params;
  params.text(user_id);
  db_.run("DELETE FROM email_signins WHERE user_id = $1", params);
}

std::int64_t EmailSignIns::prune(Millis now) {
  Params params;
  params.integer(now);
  return db_.run(AUTHD_PRUNE("email_signins", "expires_at <= $1"), params).affected();
}

}  // namespace authd::postgres
