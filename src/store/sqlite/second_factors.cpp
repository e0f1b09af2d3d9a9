// How SQLite stores second factors: one TOTP row per account (its secret
// sealed), and the recovery codes as digests. SQLite's single writer makes
// each conditional UPDATE or DELETE below the one winner of a race.
#include "store/sqlite/connection.hpp"
#include "store/sqlite/transaction.hpp"

namespace authd::sqlite {
namespace {

#define AUTHD_TOTP_COLUMNS "user_id, sealed_secret, created_at, confirmed_at, last_step"

TotpFactorRecord read_factor(const Statement& st) {
  return TotpFactorRecord{st.text(0), st.text(1), st.integer(2), st.optional_integer(3),
                          st.integer(4)};
}

}  // namespace

std::optional<TotpFactorRecord> SecondFactors::totp_of(std::string_view user_id) {
  auto st = db_.prepare("SELECT " AUTHD_TOTP_COLUMNS " FROM totp_factors WHERE user_id = ?1");
  st.bind(1, user_id);
  if (!st.step()) return std::nullopt;
  return read_factor(st);
}

bool SecondFactors::put_pending_totp(const TotpFactorRecord& f) {
  auto st = db_.prepare("INSERT INTO totp_factors (" AUTHD_TOTP_COLUMNS
                        ") VALUES (?1, ?2, ?3, NULL, -1) ON CONFLICT (user_id) DO UPDATE SET "
                        "sealed_secret = excluded.sealed_secret, created_at = excluded.created_at "
                        "WHERE confirmed_at IS NULL");
  st.bind(1, f.user_id).bind(2, f.sealed_secret).bind(3, f.created_at);
  st.run();
  return db_.changes() == 1;
}

bool SecondFactors::confirm_totp(std::string_view user_id, std::string_view sealed_secret,
                                 std::int64_t step, Millis at) {
  auto st = db_.prepare(
      "UPDATE totp_factors SET confirmed_at = ?3, last_step = ?4 "
      "WHERE user_id = ?1 AND sealed_secret = ?2 AND confirmed_at IS NULL");
  st.bind(1, user_id).bind(2, sealed_secret).bind(3, at).bind(4, step);
  st.run();
  return db_.changes() == 1;
}

bool SecondFactors::accept_totp_step(std::string_view user_id, std::int64_t step) {
  auto st = db_.prepare(
      "UPDATE totp_factors SET last_step = ?2 "
      "WHERE user_id = ?1 AND confirmed_at IS NOT NULL AND last_step < ?2");
  st.bind(1, user_id).bind(2, step);
  st.run();
  return db_.changes() == 1;
}

bool SecondFactors::reseal_totp(std::string_view user_id, std::string_view was,
                                std::string_view sealed_secret) {
  auto st = db_.prepare(
      "UPDATE totp_factors SET sealed_secret = ?3 WHERE user_id = ?1 AND sealed_secret = ?2");
  st.bind(1, user_id).bind(2, was).bind(3, sealed_secret);
  st.run();
  return db_.changes() == 1;
}

std::vector<TotpFactorRecord> SecondFactors::sealed_with_other_key(std::string_view key_id,
                                                                   std::string_view after_user_id,
                                                                   int limit) {
  // A sealed value starts "v1.<key id>.": its key is characters 4 to 11.
  auto st = db_.prepare("SELECT " AUTHD_TOTP_COLUMNS
                        " FROM totp_factors WHERE substr(sealed_secret, 4, 8) <> ?1 "
                        "AND user_id > ?2 ORDER BY user_id LIMIT ?3");
  st.bind(1, key_id).bind(2, after_user_id).bind(3, std::int64_t{limit});
  std::vector<TotpFactorRecord> factors;
  while (st.step()) factors.push_back(read_factor(st));
  return factors;
}

bool SecondFactors::remove_all(std::string_view user_id) {
  auto codes = db_.prepare("DELETE FROM recovery_codes WHERE user_id = ?1");
  codes.bind(1, user_id);
  codes.run();
  auto st = db_.prepare("DELETE FROM totp_factors WHERE user_id = ?1 AND confirmed_at IS NOT NULL");
  st.bind(1, user_id);
  st.run();
  bool confirmed = db_.changes() == 1;
  auto pending = db_.prepare("DELETE FROM totp_factors WHERE user_id = ?1");
  pending.bind(1, user_id);
  pending.run();
  return confirmed;
}

void SecondFactors::remove_totp(std::string_view user_id) {
  auto st = db_.prepare("DELETE FROM totp_factors WHERE user_id = ?1");
  st.bind(1, user_id);
  st.run();
}

void SecondFactors::replace_recovery_codes(std::string_view user_id,
                                           const std::vector<Sha256Digest>& digests) {
  auto old = db_.prepare("DELETE FROM recovery_codes WHERE user_id = ?1");
  old.bind(1, user_id);
  old.run();
  for (const Sha256Digest& digest : digests) {
    auto st = db_.prepare("INSERT INTO recovery_codes (user_id, code_digest) VALUES (?1, ?2)");
    st.bind(1, user_id).bind(2, digest);
    st.run();
  }
}

bool SecondFactors::use_recovery_code(std::string_view user_id, const Sha256Digest& digest) {
  auto st = db_.prepare("DELETE FROM recovery_codes WHERE user_id = ?1 AND code_digest = ?2");
  st.bind(1, user_id).bind(2, digest);
  st.run();
  return db_.changes() == 1;
}

std::int64_t SecondFactors::recovery_codes_left(std::string_view user_id) {
  auto st = db_.prepare("SELECT count(*) FROM recovery_codes WHERE user_id = ?1");
  st.bind(1, user_id);
  st.step();
  return st.integer(0);
}

}  // namespace authd::sqlite
