// How SQLite stores the live sign-in mails (interface.md 19.2): one row per
// user and per address at most, keyed by the token's digest.
#include "store/sqlite/connection.hpp"
#include "store/sqlite/prune.hpp"
#include "store/sqlite/transaction.hpp"

namespace authd::sqlite {
namespace {

// A row of the SELECTs below, in their columns' order.
EmailSignInRecord read_row(const Statement& st) {
  return EmailSignInRecord{st.digest(0),
                           st.digest(1),
                           st.text(2),
                           st.text(3),
                           st.integer(4),
                           st.integer(5),
                           static_cast<int>(st.integer(6))};
}

}  // namespace

void EmailSignIns::replace(const EmailSignInRecord& r) {
  auto gone = db_.prepare("DELETE FROM email_signins WHERE user_id = ?1 OR email = ?2");
  gone.bind(1, r.user_id).bind(2, r.email);
  gone.run();
  auto st = db_.prepare(
      "INSERT INTO email_signins (token_digest, code_digest, user_id, email, created_at, "
      "expires_at, wrong_codes) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)");
  st.bind(1, r.token_digest).bind(2, r.code_digest).bind(3, r.user_id).bind(4, r.email);
  st.bind(5, r.created_at).bind(6, r.expires_at).bind(7, std::int64_t{r.wrong_codes});
  st.run();
}

std::optional<EmailSignInRecord> EmailSignIns::by_token(const Sha256Digest& digest) {
  auto st = db_.prepare(
      "SELECT token_digest, code_digest, user_id, email, created_at, expires_at, wrong_codes "
      "FROM email_signins WHERE token_digest = ?1");
  st.bind(1, digest);
  if (!st.step()) return std::nullopt;
  return read_row(st);
}

std::optional<EmailSignInRecord> EmailSignIns::by_email(std::string_view email) {
  auto st = db_.prepare(
      "SELECT token_digest, code_digest, user_id, email, created_at, expires_at, wrong_codes "
      "FROM email_signins WHERE email = ?1");
  st.bind(1, email);
  if (!st.step()) return std::nullopt;
  return read_row(st);
}

int EmailSignIns::count_wrong_code(std::string_view email) {
  auto st = db_.prepare(
      "UPDATE email_signins SET wrong_codes = wrong_codes + 1 WHERE email = ?1 "
      "RETURNING wrong_codes");
  st.bind(1, email);
  if (!st.step()) return 0;
  int count = static_cast<int>(st.integer(0));
  while (st.step()) {
  }
  return count;
}

void EmailSignIns::delete_of_user(std::string_view user_id) {
  auto st = db_.prepare("DELETE FROM email_signins WHERE user_id = ?1");
  st.bind(1, user_id);
  st.run();
}

std::int64_t EmailSignIns::prune(Millis now) {
  auto st = db_.prepare(AUTHD_PRUNE("email_signins", "token_digest", "expires_at <= ?1"));
  st.bind(1, now);
  st.run();
  return db_.changes();
}

}  // namespace authd::sqlite
