// How SQLite stores the authorization codes (interface.md 17.6): keyed by
// the code's digest, marked when used (single writer: the conditional
// UPDATE alone decides which exchange wins), kept past expiry until
// keep_until so that a reuse is still recognized.
#include "store/oauth_columns.hpp"
#include "store/sqlite/connection.hpp"
#include "store/sqlite/prune.hpp"
#include "store/sqlite/transaction.hpp"

namespace authd::sqlite {

void AuthorizationCodes::insert(const AuthorizationCodeRecord& c) {
  auto st = db_.prepare("INSERT INTO oauth_codes (" AUTHD_OAUTH_CODE_COLUMNS
                        ") VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, "
                        "?15, ?16)");
  st.bind(1, c.code_digest).bind(2, c.client_id).bind(3, c.user_id).bind(4, c.redirect_uri);
  st.bind(5, c.scope).bind(6, c.nonce).bind(7, c.code_challenge).bind(8, c.session_digest);
  st.bind(9, c.session_public_id).bind(10, c.auth_time).bind(11, c.amr);
  st.bind(12, c.created_at).bind(13, c.expires_at).bind(14, c.used_at).bind(15, c.keep_until);
  st.bind(16, null_if_empty(c.resource));
  st.run();
}

std::optional<AuthorizationCodeRecord> AuthorizationCodes::by_digest(const Sha256Digest& digest) {
  auto st =
      db_.prepare("SELECT " AUTHD_OAUTH_CODE_COLUMNS " FROM oauth_codes WHERE code_digest = ?1");
  st.bind(1, digest);
  if (!st.step()) return std::nullopt;
  return read_authorization_code(st);
}

bool AuthorizationCodes::mark_used(const Sha256Digest& digest, Millis now) {
  auto st =
      db_.prepare("UPDATE oauth_codes SET used_at = ?2 WHERE code_digest = ?1 AND used_at IS NULL");
  st.bind(1, digest).bind(2, now);
  st.run();
  return db_.changes() == 1;
}

void AuthorizationCodes::delete_of_user(std::string_view user_id) {
  auto st = db_.prepare("DELETE FROM oauth_codes WHERE user_id = ?1");
  st.bind(1, user_id);
  st.run();
}

void AuthorizationCodes::delete_of_user_and_client(std::string_view user_id,
                                                   std::string_view client_id) {
  auto st = db_.prepare("DELETE FROM oauth_codes WHERE user_id = ?1 AND client_id = ?2");
  st.bind(1, user_id);
  st.bind(2, client_id);
  st.run();
}

std::int64_t AuthorizationCodes::prune(Millis now) {
  auto st = db_.prepare(AUTHD_PRUNE("oauth_codes", "code_digest", "keep_until <= ?1"));
  st.bind(1, now);
  st.run();
  return db_.changes();
}

}  // namespace authd::sqlite
