// How SQLite stores the authorization requests waiting for a sign-in or a
// consent (interface.md 17.5): keyed by the digest of their id, pruned once
// expired.
#include "store/oauth_columns.hpp"
#include "store/sqlite/connection.hpp"
#include "store/sqlite/prune.hpp"
#include "store/sqlite/transaction.hpp"

namespace authd::sqlite {

void AuthorizationRequests::insert(const AuthorizationRequestRecord& r) {
  auto st = db_.prepare("INSERT INTO oauth_authorization_requests (" AUTHD_OAUTH_REQUEST_COLUMNS
                        ") VALUES (?1, ?2, ?3, ?4, ?5)");
  st.bind(1, r.id_digest).bind(2, r.client_id).bind(3, r.parameters);
  st.bind(4, r.created_at).bind(5, r.expires_at);
  st.run();
}

std::optional<AuthorizationRequestRecord> AuthorizationRequests::by_id(const Sha256Digest& digest) {
  auto st = db_.prepare("SELECT " AUTHD_OAUTH_REQUEST_COLUMNS
                        " FROM oauth_authorization_requests WHERE id_digest = ?1");
  st.bind(1, digest);
  if (!st.step()) return std::nullopt;
  return read_authorization_request(st);
}

bool AuthorizationRequests::remove(const Sha256Digest& digest) {
  auto st = db_.prepare("DELETE FROM oauth_authorization_requests WHERE id_digest = ?1");
  st.bind(1, digest);
  st.run();
  return db_.changes() == 1;
}

std::int64_t AuthorizationRequests::prune(Millis now) {
  auto st =
      db_.prepare(AUTHD_PRUNE("oauth_authorization_requests", "id_digest", "expires_at <= ?1"));
  st.bind(1, now);
  st.run();
  return db_.changes();
}

}  // namespace authd::sqlite
