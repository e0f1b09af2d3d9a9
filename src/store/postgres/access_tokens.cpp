// How PostgreSQL stores the opaque access tokens (interface.md 17.9): keyed
// by the token's digest, found with their user in one statement (one for a
// whole batch of reads), revoked by deletion (one, or by grant, user, or
// user and client), pruned once expired.
#include "store/oauth_columns.hpp"
#include "store/postgres/connection.hpp"
#include "store/postgres/prune.hpp"
#include "store/postgres/read_pipeline.hpp"
#include "store/postgres/shared_access_tokens.hpp"
#include "store/postgres/transaction.hpp"

namespace authd::postgres {

void AccessTokens::insert(const AccessTokenRecord& t) {
  Params params;
  params.digest(t.token_digest).text(t.client_id).text(t.user_id).text(t.scope);
  params.digest(t.grant_digest).text(t.session_public_id).integer(t.created_at);
  params.integer(t.expires_at).text(null_if_empty(t.resource));
  db_.run("INSERT INTO oauth_access_tokens (" AUTHD_OAUTH_TOKEN_COLUMNS
          ") VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)",
          params);
}

// In a batch of reads, the lookup shares one statement with the batch's
// others (shared_access_tokens.hpp).
std::optional<AccessTokenUser> AccessTokens::live_with_user(const Sha256Digest& digest,
                                                            Millis now) {
  if (PipelineTurns* batch = db_.read_batch())
    return batch->shared_access_tokens().live_with_user(db_, *batch, digest, now);
  return SharedAccessTokens::live_with_user_alone(db_, digest, now);
}

bool AccessTokens::revoke(const Sha256Digest& digest) {
  Params params;
  params.digest(digest);
  return db_.run("DELETE FROM oauth_access_tokens WHERE token_digest = $1", params).affected() == 1;
}

std::int64_t AccessTokens::revoke_of_grant(const Sha256Digest& grant_digest) {
  Params params;
  params.digest(grant_digest);
  return db_.run("DELETE FROM oauth_access_tokens WHERE grant_digest = $1", params).affected();
}

std::int64_t AccessTokens::revoke_of_user(std::string_view user_id) {
  Params params;
  params.text(user_id);
  return db_.run("DELETE FROM oauth_access_tokens WHERE user_id = $1", params).affected();
}

std::int64_t AccessTokens::revoke_of_user_and_client(std::string_view user_id,
                                                     std::string_view client_id) {
  Params params;
  params.text(user_id).text(client_id);
  return db_.run("DELETE FROM oauth_access_tokens WHERE user_id = $1 AND client_id = $2", params)
      .affected();
}

std::int64_t AccessTokens::prune(Millis now) {
  Params params;
  params.integer(now);
  return db_.run(AUTHD_PRUNE("oauth_access_tokens", "expires_at <= $1"), params).affected();
}

}  // namespace authd::postgres
