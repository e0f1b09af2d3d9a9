// How SQLite stores the refresh tokens (interface.md 17.10): keyed by the
// token's digest, grouped by family (the authorization code's digest),
// marked when rotated (single writer: the conditional UPDATE alone decides
// which rotation wins), removed by family, user, user and client, or client,
// pruned once the family's absolute lifetime has passed.
#include <optional>
#include <string>

#include "store/oauth_columns.hpp"
#include "store/sqlite/connection.hpp"
#include "store/sqlite/prune.hpp"
#include "store/sqlite/transaction.hpp"

namespace authd::sqlite {

namespace {

// An empty resource is the issuer: stored as NULL.
std::optional<std::string> resource_column(const std::string& resource) {
  if (resource.empty()) return std::nullopt;
  return resource;
}

}  // namespace

void RefreshTokens::insert(const RefreshTokenRecord& t) {
  auto st = db_.prepare("INSERT INTO oauth_refresh_tokens (" AUTHD_OAUTH_REFRESH_COLUMNS
                        ") VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13)");
  st.bind(1, t.token_digest).bind(2, t.family_digest).bind(3, t.client_id).bind(4, t.user_id);
  st.bind(5, t.scope).bind(6, resource_column(t.resource)).bind(7, t.session_public_id);
  st.bind(8, t.auth_time).bind(9, t.amr).bind(10, t.created_at).bind(11, t.expires_at);
  st.bind(12, t.family_expires_at).bind(13, t.used_at);
  st.run();
}

std::optional<RefreshTokenRecord> RefreshTokens::by_digest(const Sha256Digest& digest) {
  auto st = db_.prepare("SELECT " AUTHD_OAUTH_REFRESH_COLUMNS
                        " FROM oauth_refresh_tokens WHERE token_digest = ?1");
  st.bind(1, digest);
  if (!st.step()) return std::nullopt;
  return read_refresh_token(st);
}

bool RefreshTokens::mark_used(const Sha256Digest& digest, Millis now) {
  auto st = db_.prepare(
      "UPDATE oauth_refresh_tokens SET used_at = ?2 WHERE token_digest = ?1 AND used_at IS NULL");
  st.bind(1, digest).bind(2, now);
  st.run();
  return db_.changes() == 1;
}

std::int64_t RefreshTokens::revoke_family(const Sha256Digest& family_digest) {
  auto st = db_.prepare("DELETE FROM oauth_refresh_tokens WHERE family_digest = ?1");
  st.bind(1, family_digest);
  st.run();
  return db_.changes();
}

std::int64_t RefreshTokens::revoke_of_user(std::string_view user_id) {
  auto st = db_.prepare("DELETE FROM oauth_refresh_tokens WHERE user_id = ?1");
  st.bind(1, user_id);
  st.run();
  return db_.changes();
}

std::int64_t RefreshTokens::revoke_of_user_and_client(std::string_view user_id,
                                                      std::string_view client_id) {
  auto st = db_.prepare("DELETE FROM oauth_refresh_tokens WHERE user_id = ?1 AND client_id = ?2");
  st.bind(1, user_id).bind(2, client_id);
  st.run();
  return db_.changes();
}

std::int64_t RefreshTokens::revoke_of_client(std::string_view client_id) {
  auto st = db_.prepare("DELETE FROM oauth_refresh_tokens WHERE client_id = ?1");
  st.bind(1, client_id);
  st.run();
  return db_.changes();
}

std::int64_t RefreshTokens::prune(Millis now) {
  auto st =
      db_.prepare(AUTHD_PRUNE("oauth_refresh_tokens", "token_digest", "family_expires_at <= ?1"));
  st.bind(1, now);
  st.run();
  return db_.changes();
}

}  // namespace authd::sqlite
