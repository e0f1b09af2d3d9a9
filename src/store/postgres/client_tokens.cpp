// How PostgreSQL stores the access tokens of the client_credentials grant
// (interface.md 17.7): keyed by the token's digest, no user, revoked by
// deletion (one, or all of a client's), pruned once expired.
#include "store/oauth_columns.hpp"
#include "store/postgres/connection.hpp"
#include "store/postgres/prune.hpp"
#include "store/postgres/transaction.hpp"

namespace authd::postgres {

void ClientTokens::insert(const ClientTokenRecord& t) {
  std::optional<std::string> resource;
  if (!t.resource.empty()) resource = t.resource;  // NULL: the issuer
  Params params;
  params.digest(t.token_digest).text(t.client_id).text(t.scope).text(resource);
  params.integer(t.created_at).integer(t.expires_at);
  db_.run("INSERT INTO oauth_client_tokens (" AUTHD_OAUTH_CLIENT_TOKEN_COLUMNS
          ") VALUES ($1, $2, $3, $4, $5, $6)",
          params);
}

std::optional<ClientTokenRecord> ClientTokens::live(const Sha256Digest& digest, Millis now) {
  Params params;
  params.digest(digest).integer(now);
  Result rows = db_.run("SELECT " AUTHD_OAUTH_CLIENT_TOKEN_COLUMNS
                        " FROM oauth_client_tokens WHERE token_digest = $1 AND expires_at > $2",
                        params);
  if (rows.rows() == 0) return std::nullopt;
  return read_client_token(Row(rows, 0));
}

bool ClientTokens::revoke(const Sha256Digest& digest) {
  Params params;
  params.digest(digest);
  return db_.run("DELETE FROM oauth_client_tokens WHERE token_digest = $1", params).affected() == 1;
}

std::int64_t ClientTokens::revoke_of_client(std::string_view client_id) {
  Params params;
  params.text(client_id);
  return db_.run("DELETE FROM oauth_client_tokens WHERE client_id = $1", params).affected();
}

std::int64_t ClientTokens::prune(Millis now) {
  Params params;
  params.integer(now);
  return db_.run(AUTHD_PRUNE("oauth_client_tokens", "expires_at <= $1"), params).affected();
}

}  // namespace authd::postgres
