// How PostgreSQL stores the authorization requests waiting for a sign-in or
// a consent (interface.md 17.5): keyed by the digest of their id, pruned
// once expired. Of two answers to one request, one DELETE finds the row.
#include "store/oauth_columns.hpp"
#include "store/postgres/connection.hpp"
#include "store/postgres/prune.hpp"
#include "store/postgres/transaction.hpp"

namespace authd::postgres {

void AuthorizationRequests::insert(const AuthorizationRequestRecord& r) {
  Params params;
  params.digest(r.id_digest).text(r.client_id).text(r.parameters);
  params.integer(r.created_at).integer(r.expires_at);
  db_.run("INSERT INTO oauth_authorization_requests (" AUTHD_OAUTH_REQUEST_COLUMNS
          ") VALUES ($1, $2, $3, $4, $5)",
          params);
}

std::optional<AuthorizationRequestRecord> AuthorizationRequests::by_id(const Sha256Digest& digest) {
  Params params;
  params.digest(digest);
  Result rows = db_.run("SELECT " AUTHD_OAUTH_REQUEST_COLUMNS
                        " FROM oauth_authorization_requests WHERE id_digest = $1",
                        params);
  if (rows.rows() == 0) return std::nullopt;
  return read_authorization_request(Row(rows, 0));
}

bool AuthorizationRequests::remove(const Sha256Digest& digest) {
  Params params;
  params.digest(digest);
  return db_.run("DELETE FROM oauth_authorization_requests WHERE id_digest = $1", params)
             .affected() == 1;
}

std::int64_t AuthorizationRequests::prune(Millis now) {
  Params params;
  params.integer(now);
  return db_.run(AUTHD_PRUNE("oauth_authorization_requests", "expires_at <= $1"), params)
      .affected();
}

}  // namespace authd::postgres
