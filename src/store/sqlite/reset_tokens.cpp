// How SQLite stores password-reset tokens: one row per user at most, keyed
// by the token's digest.
#include "store/sqlite/connection.hpp"
#include "store/sqlite/prune.hpp"
#include "store/sqlite/transaction.hpp"

namespace authd::sqlite {

void ResetTokens::replace(const ResetTokenRecord& t) {
  delete_of_user(t.user_id);
  auto st = db_.prepare(
      "INSERT INTO reset_tokens (token_digest, user_id, created_at, expires_at) "
      "VALUES (?1, ?2, ?3, ?4)");
  st.bind(1, t.token_digest).bind(2, t.user_id).bind(3, t.created_at).bind(4, t.expires_at);
  st.run();
}

std::optional<ResetTokenRecord> ResetTokens::by_digest(const Sha256Digest& digest) {
  auto st = db_.prepare(
      "SELECT token_digest, user_id, created_at, expires_at FROM reset_tokens "
      "WHERE token_digest = ?1");
  st.bind(1, digest);
  if (!st.step()) return std::nullopt;
  return ResetTokenRecord{st.digest(0), st.text(1), st.integer(2), st.integer(3)};
}

void ResetTokens::delete_of_user(std::string_view user_id) {
  auto st = db_.prepare("DELETE FROM reset_tokens WHERE user_id = ?1");
  st.bind(1, user_id);
  st.run();
}

std::int64_t ResetTokens::prune(Millis now) {
  auto st = db_.prepare(AUTHD_PRUNE("reset_tokens", "token_digest", "expires_at <= ?1"));
  st.bind(1, now);
  st.run();
  return db_.changes();
}

}  // namespace authd::sqlite
