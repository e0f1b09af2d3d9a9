// How SQLite stores the opaque access tokens (interface.md 17.9): keyed by
// the token's digest, found with their user in one statement, revoked by
// deletion (one, or by grant, user, or user and client), pruned once expired.
#include "store/oauth_columns.hpp"
#include "store/sqlite/connection.hpp"
#include "store/sqlite/prune.hpp"
#include "store/sqlite/transaction.hpp"
#include "store/user_columns.hpp"

namespace authd::sqlite {

void AccessTokens::insert(const AccessTokenRecord& t) {
  auto st = db_.prepare("INSERT INTO oauth_access_tokens (" AUTHD_OAUTH_TOKEN_COLUMNS
                        ") VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)");
  st.bind(1, t.token_digest).bind(2, t.client_id).bind(3, t.user_id).bind(4, t.scope);
  st.bind(5, t.grant_digest).bind(6, t.session_public_id).bind(7, t.created_at);
  st.bind(8, t.expires_at).bind(9, null_if_empty(t.resource));
  st.run();
}

// The user's columns first (read_user reads from 0), the token's after; the
// subquery renames the token's created_at away from the user's.
std::optional<AccessTokenUser> AccessTokens::live_with_user(const Sha256Digest& digest,
                                                            Millis now) {
  auto st = db_.prepare("SELECT " AUTHD_USER_COLUMNS ", " AUTHD_OAUTH_TOKEN_COLUMNS_AS_JOINED
                        " FROM users JOIN (SELECT " AUTHD_OAUTH_TOKEN_COLUMNS_RENAMED
                        " FROM oauth_access_tokens WHERE token_digest = ?1 AND expires_at > ?2)"
                        " AS t ON users.id = t.user_id");
  st.bind(1, digest).bind(2, now);
  if (!st.step()) return std::nullopt;
  return AccessTokenUser{read_access_token(st, kUserColumnCount), read_user(st)};
}

bool AccessTokens::revoke(const Sha256Digest& digest) {
  auto st = db_.prepare("DELETE FROM oauth_access_tokens WHERE token_digest = ?1");
  st.bind(1, digest);
  st.run();
  return db_.changes() == 1;
}

std::int64_t AccessTokens::revoke_of_grant(const Sha256Digest& grant_digest) {
  auto st = db_.prepare("DELETE FROM oauth_access_tokens WHERE grant_digest = ?1");
  st.bind(1, grant_digest);
  st.run();
  return db_.changes();
}

std::int64_t AccessTokens::revoke_of_user(std::string_view user_id) {
  auto st = db_.prepare("DELETE FROM oauth_access_tokens WHERE user_id = ?1");
  st.bind(1, user_id);
  st.run();
  return db_.changes();
}

std::int64_t AccessTokens::revoke_of_user_and_client(std::string_view user_id,
                                                     std::string_view client_id) {
  auto st = db_.prepare("DELETE FROM oauth_access_tokens WHERE user_id = ?1 AND client_id = ?2");
  st.bind(1, user_id).bind(2, client_id);
  st.run();
  return db_.changes();
}

std::int64_t AccessTokens::prune(Millis now) {
  auto st = db_.prepare(AUTHD_PRUNE("oauth_access_tokens", "token_digest", "expires_at <= ?1"));
  st.bind(1, now);
  st.run();
  return db_.changes();
}

}  // namespace authd::sqlite
