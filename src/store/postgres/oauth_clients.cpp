// How PostgreSQL stores the registered OAuth clients (interface.md 17.3):
// one row per client, its lists as JSON arrays; removing one removes what
// was issued to it first, in the same transaction.
#include <string>
#include <vector>

#include "crypto/random.hpp"
#include "store/oauth_columns.hpp"
#include "store/postgres/connection.hpp"
#include "store/postgres/read_pipeline.hpp"
#include "store/postgres/shared_oauth_clients.hpp"
#include "store/postgres/transaction.hpp"

namespace authd::postgres {
namespace {

// Every member but id and created_at, as $2 .. $15.
void add_writable(Params& params, const OAuthClientRecord& c) {
  params.text(c.name).boolean(c.confidential).digest(c.secret_digest);
  params.digest(c.previous_secret_digest).integer(c.previous_secret_until);
  params.text(json_list(c.redirect_uris)).text(json_list(c.post_logout_redirect_uris));
  params.text(json_list(c.grant_types)).text(json_list(c.scopes)).boolean(c.first_party);
  params.text(c.access_token_format).text(c.id_token_alg).boolean(c.introspection);
  params.integer(c.updated_at);
}

// The users of the client's grants and consents, locked in id order (those
// an earlier round locked are held already).
std::vector<std::string> lock_users_of_grants(Connection& db, const Params& client) {
  Result rows = db.run(
      "SELECT id FROM users WHERE id IN (SELECT user_id FROM oauth_codes WHERE client_id = $1"
      " UNION SELECT user_id FROM oauth_refresh_tokens WHERE client_id = $1"
      " UNION SELECT user_id FROM oauth_access_tokens WHERE client_id = $1"
      " UNION SELECT user_id FROM oauth_consents WHERE client_id = $1)"
      " ORDER BY id FOR UPDATE",
      client);
  std::vector<std::string> ids;
  ids.reserve(static_cast<std::size_t>(rows.rows()));
  for (int i = 0; i < rows.rows(); ++i) ids.push_back(Row(rows, i).text(0));
  return ids;
}

}  // namespace

void OAuthClients::insert(const OAuthClientRecord& client) {
  Params params;
  params.text(client.id);
  add_writable(params, client);
  params.integer(client.created_at);
  db_.run(
      "INSERT INTO oauth_clients (id, name, confidential, secret_digest, "
      "previous_secret_digest, previous_secret_until, redirect_uris, post_logout_redirect_uris, "
      "grant_types, scopes, first_party, access_token_format, id_token_alg, introspection, "
      "updated_at, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, "
      "$14, $15, $16)",
      params);
}

// In a batch of reads, a canonical id shares one statement with the
// batch's other lookups (shared_oauth_clients.hpp); any other text, which
// no client has, goes alone, so that it cannot fail the shared statement.
std::optional<OAuthClientRecord> OAuthClients::by_id(std::string_view id) {
  PipelineTurns* batch = db_.read_batch();
  if (batch != nullptr && is_canonical_uuid(id))
    return batch->shared_oauth_clients().by_id(db_, *batch, id);
  return SharedOAuthClients::by_id_alone(db_, id);
}

std::vector<OAuthClientRecord> OAuthClients::list() {
  Result rows = db_.run("SELECT " AUTHD_OAUTH_CLIENT_COLUMNS
                        " FROM oauth_clients ORDER BY created_at, id COLLATE \"C\"");
  std::vector<OAuthClientRecord> clients;
  clients.reserve(static_cast<std::size_t>(rows.rows()));
  for (int i = 0; i < rows.rows(); ++i) clients.push_back(read_oauth_client(Row(rows, i)));
  return clients;
}

bool OAuthClients::update(const OAuthClientRecord& client) {
  Params params;
  params.text(client.id);
  add_writable(params, client);
  return db_.run(
                "UPDATE oauth_clients SET name = $2, confidential = $3, secret_digest = $4, "
                "previous_secret_digest = $5, previous_secret_until = $6, redirect_uris = $7, "
                "post_logout_redirect_uris = $8, grant_types = $9, scopes = $10, "
                "first_party = $11, access_token_format = $12, id_token_alg = $13, "
                "introspection = $14, updated_at = $15 WHERE id = $1",
                params)
             .affected() == 1;
}

// What names the client first, then the client. No lock on the client's
// row beforehand: an exchange holds its code's row and then checks the
// client's key, so locking the client first could deadlock with it.
//
// Each round first locks, in id order, the users the client's grants and
// consents belong to, and then deletes the grants and consents of those
// users only: a user's row before that user's tokens, codes and consents
// (interface.md 8.2), as a rotation, an exchange, a reuse's revocation of a
// family, issuing a code and a consent's withdrawal take them. Without it
// this deletion, holding one token of a family, met a reuse's revocation
// holding another; and having deleted the code of a user whose first grant
// committed after it read the users, it met that user's withdrawal holding
// the consent.
//
// Grants can still commit after a DELETE passed them: a rotation or an
// exchange in flight, or a user's first grant (it holds the client's key,
// so the client's DELETE waits for it). Each DELETE runs until it finds
// nothing, codes and refresh tokens before the access tokens they beget
// (interface.md 17.10); a grant left when the client's DELETE runs breaks
// the foreign key, and the deletion goes round again, locking that grant's
// user first. What names no user (waiting requests, client_credentials
// tokens) is deleted after the savepoint, so that going round again lets
// it go too: a waiting request is its user's (issuing a code locks the
// user, then removes the request), and holding one into the next round's
// locks met that user's next code in a deadlock.
//
// Client deletions run one at a time (a transaction-scoped advisory lock):
// each round locks users in id order, but a later round's may come before
// an earlier's, so two deletions could otherwise wait for each other.
//
// Rows of client $1 whose user is one of $2 (IN over unnest is hashed,
// where = ANY($2) in a generic plan compares each row with each user).
#define AUTHD_OF_LOCKED_USERS " WHERE client_id = $1 AND user_id IN (SELECT unnest($2::text[]))"

bool OAuthClients::remove(std::string_view id) {
  constexpr int kRounds = 5;
  Params client;
  client.text(id);
  db_.execute("SELECT pg_advisory_xact_lock(hashtextextended('authd client deletion', 0))");
  for (int round = 1;; ++round) {
    Params owned;
    owned.text(id).text_array(lock_users_of_grants(db_, client));
    db_.delete_until_none("DELETE FROM oauth_codes" AUTHD_OF_LOCKED_USERS, owned);
    db_.delete_until_none("DELETE FROM oauth_refresh_tokens" AUTHD_OF_LOCKED_USERS, owned);
    db_.delete_until_none("DELETE FROM oauth_access_tokens" AUTHD_OF_LOCKED_USERS, owned);
    db_.delete_until_none("DELETE FROM oauth_consents" AUTHD_OF_LOCKED_USERS, owned);
    db_.execute("SAVEPOINT client_removal");
    try {
      db_.delete_until_none("DELETE FROM oauth_authorization_requests WHERE client_id = $1",
                            client);
      db_.delete_until_none("DELETE FROM oauth_client_tokens WHERE client_id = $1", client);
      const bool removed =
          db_.run("DELETE FROM oauth_clients WHERE id = $1", client).affected() == 1;
      db_.execute("RELEASE SAVEPOINT client_removal");
      return removed;
    } catch (const ForeignKeyViolation&) {
      if (round == kRounds) throw;  // grants still coming: 503, the caller may retry
      db_.execute("ROLLBACK TO SAVEPOINT client_removal");
    }
  }
}

#undef AUTHD_OF_LOCKED_USERS

}  // namespace authd::postgres
