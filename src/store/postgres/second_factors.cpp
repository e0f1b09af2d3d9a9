// How PostgreSQL stores second factors: one TOTP row per account (its
// secret sealed), and the recovery codes as digests. Each single-use rule is
// one conditional UPDATE or DELETE: the row lock makes one of several
// concurrent transactions (on any instance) the winner, and the others see
// its change when they get the lock (READ COMMITTED re-checks the WHERE).
#include "store/postgres/connection.hpp"
#include "store/postgres/transaction.hpp"

namespace authd::postgres {
namespace {

#define AUTHD_TOTP_COLUMNS "user_id, sealed_secret, created_at, confirmed_at, last_step"

TotpFactorRecord read_factor(const Row& row) {
  return TotpFactorRecord{row.text(0), row.text(1), row.integer(2), row.optional_integer(3),
                          row.integer(4)};
}

}  // namespace

std::optional<TotpFactorRecord> SecondFactors::totp_of(std::string_view user_id) {
  Params params;
  params.text(user_id);
  Result rows =
      db_.run("SELECT " AUTHD_TOTP_COLUMNS " FROM totp_factors WHERE user_id = $1", params);
  if (rows.rows() == 0) return std::nullopt;
  return read_factor(Row(rows, 0));
}

bool SecondFactors::put_pending_totp(const TotpFactorRecord& f) {
  Params params;
  params.text(f.user_id).text(f.sealed_secret).integer(f.created_at);
  return db_.run("INSERT INTO totp_factors (" AUTHD_TOTP_COLUMNS
                 ") VALUES ($1, $2, $3, NULL, -1) ON CONFLICT (user_id) DO UPDATE SET "
                 "sealed_secret = excluded.sealed_secret, created_at = excluded.created_at "
                 "WHERE totp_factors.confirmed_at IS NULL",
                 params)
             .affected() == 1;
}

bool SecondFactors::confirm_totp(std::string_view user_id, std::string_view sealed_secret,
                                 std::int64_t step, Millis at) {
  Params params;
  params.text(user_id).text(sealed_secret).integer(at).integer(step);
  return db_.run(
                "UPDATE totp_factors SET confirmed_at = $3, last_step = $4 "
                "WHERE user_id = $1 AND sealed_secret = $2 AND confirmed_at IS NULL",
                params)
             .affected() == 1;
}

bool SecondFactors::accept_totp_step(std::string_view user_id, std::int64_t step) {
  Params params;
  params.text(user_id).integer(step);
  return db_.run(
                "UPDATE totp_factors SET last_step = $2 "
                "WHERE user_id = $1 AND confirmed_at IS NOT NULL AND last_step < $2",
                params)
             .affected() == 1;
}

bool SecondFactors::reseal_totp(std::string_view user_id, std::string_view was,
                                std::string_view sealed_secret) {
  // Only the secret that was read: READ COMMITTED re-checks the WHERE after
  // a concurrent enrolment's commit, which this must not undo.
  Params params;
  params.text(user_id).text(was).text(sealed_secret);
  return db_.run(
                "UPDATE totp_factors SET sealed_secret = $3 WHERE user_id = $1 AND "
                "sealed_secret = $2",
                params)
             .affected() == 1;
}

std::vector<TotpFactorRecord> SecondFactors::sealed_with_other_key(std::string_view key_id,
                                                                   std::string_view after_user_id,
                                                                   int limit) {
  // A sealed value starts "v1.<key id>.": its key is characters 4 to 11.
  Params params;
  params.text(key_id).text(after_user_id).integer(std::int64_t{limit});
  Result rows = db_.run("SELECT " AUTHD_TOTP_COLUMNS
                        " FROM totp_factors WHERE substr(sealed_secret, 4, 8) <> $1 "
                        "AND user_id COLLATE \"C\" > $2 ORDER BY user_id COLLATE \"C\" LIMIT $3",
                        params);
  std::vector<TotpFactorRecord> factors;
  factors.reserve(static_cast<std::size_t>(rows.rows()));
  for (int i = 0; i < rows.rows(); ++i) factors.push_back(read_factor(Row(rows, i)));
  return factors;
}

bool SecondFactors::remove_all(std::string_view user_id) {
  Params params;
  params.text(user_id);
  db_.run("DELETE FROM recovery_codes WHERE user_id = $1", params);
  Result removed =
      db_.run("DELETE FROM totp_factors WHERE user_id = $1 RETURNING confirmed_at", params);
  return removed.rows() == 1 && Row(removed, 0).optional_integer(0).has_value();
}

void SecondFactors::remove_totp(std::string_view user_id) {
  Params params;
  params.text(user_id);
  db_.run("DELETE FROM totp_factors WHERE user_id = $1", params);
}

void SecondFactors::replace_recovery_codes(std::string_view user_id,
                                           const std::vector<Sha256Digest>& digests) {
  Params params;
  params.text(user_id);
  db_.run("DELETE FROM recovery_codes WHERE user_id = $1", params);
  for (const Sha256Digest& digest : digests) {
    Params row;
    row.text(user_id).digest(digest);
    db_.run("INSERT INTO recovery_codes (user_id, code_digest) VALUES ($1, $2)", row);
  }
}

bool SecondFactors::use_recovery_code(std::string_view user_id, const Sha256Digest& digest) {
  Params params;
  params.text(user_id).digest(digest);
  return db_.run("DELETE FROM recovery_codes WHERE user_id = $1 AND code_digest = $2", params)
             .affected() == 1;
}

std::int64_t SecondFactors::recovery_codes_left(std::string_view user_id) {
  Params params;
  params.text(user_id);
  Result rows = db_.run("SELECT count(*) FROM recovery_codes WHERE user_id = $1", params);
  return Row(rows, 0).integer(0);
}

}  // namespace authd::postgres
