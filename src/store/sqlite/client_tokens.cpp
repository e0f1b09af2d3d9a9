// How SQLite stores the access tokens of the client_credentials grant
// (interface.md 17.7): keyed by the token's digest, no user, revoked by
// deletion (one, or all of a client's), pruned once expired.
#include "store/oauth_columns.hpp"
#include "store/sqlite/connection.hpp"
#include "store/sqlite/prune.hpp"
#include "store/sqlite/transaction.hpp"

namespace authd::sqlite {

void ClientTokens::insert(const ClientTokenRecord& t) {
  auto st = db_.prepare("INSERT INTO oauth_client_tokens (" AUTHD_OAUTH_CLIENT_TOKEN_COLUMNS
                        ") VALUES (?1, ?2, ?3, ?4, ?5, ?6)");
  std::optional<std::string> resource;
  if (!t.resource.empty()) resource = t.resource;  // NULL: the issuer
  st.bind(1, t.token_digest).bind(2, t.client_id).bind(3, t.scope).bind(4, resource);
  st.bind(5, t.created_at).bind(6, t.expires_at);
  st.run();
}

std::optional<ClientTokenRecord> ClientTokens::live(const Sha256Digest& digest, Millis now) {
  auto st = db_.prepare("SELECT " AUTHD_OAUTH_CLIENT_TOKEN_COLUMNS
                        " FROM oauth_client_tokens WHERE token_digest = ?1 AND expires_at > ?2");
  st.bind(1, digest).bind(2, now);
  if (!st.step()) return std::nullopt;
  return read_client_token(st);
}

bool ClientTokens::revoke(const Sha256Digest& digest) {
  auto st = db_.prepare("DELETE FROM oauth_client_tokens WHERE token_digest = ?1");
  st.bind(1, digest);
  st.run();
  return db_.changes() == 1;
}

std::int64_t ClientTokens::revoke_of_client(std::string_view client_id) {
  auto st = db_.prepare("DELETE FROM oauth_client_tokens WHERE client_id = ?1");
  st.bind(1, client_id);
  st.run();
  return db_.changes();
}

std::int64_t ClientTokens::prune(Millis now) {
  auto st = db_.prepare(AUTHD_PRUNE("oauth_client_tokens", "token_digest", "expires_at <= ?1"));
  st.bind(1, now);
  st.run();
  return db_.changes();
}

}  // namespace authd::sqlite
