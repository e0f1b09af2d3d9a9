// How PostgreSQL stores the users' consents to third-party clients
// (interface.md 17.5): one row per user and client, its scopes as a JSON
// array; a wider consent replaces the scopes and keeps when it was first
// granted. In a write transaction a consent is read FOR UPDATE, so that two
// concurrent widenings of one consent each build on the other's scopes.
#include "store/oauth_columns.hpp"
#include "store/postgres/connection.hpp"
#include "store/postgres/transaction.hpp"

namespace authd::postgres {

void Consents::upsert(const ConsentRecord& c) {
  Params params;
  params.text(c.user_id).text(c.client_id).text(json_list(c.scopes));
  params.integer(c.granted_at).integer(c.updated_at);
  db_.run("INSERT INTO oauth_consents (" AUTHD_OAUTH_CONSENT_COLUMNS
          ") VALUES ($1, $2, $3, $4, $5) ON CONFLICT (user_id, client_id) DO UPDATE SET "
          "scopes = EXCLUDED.scopes, updated_at = EXCLUDED.updated_at",
          params);
}

std::optional<ConsentRecord> Consents::get(std::string_view user_id, std::string_view client_id) {
  Params params;
  params.text(user_id).text(client_id);
  Result rows = locking_ ? db_.run("SELECT " AUTHD_OAUTH_CONSENT_COLUMNS
                                   " FROM oauth_consents WHERE user_id = $1 AND client_id = $2 "
                                   "FOR UPDATE",
                                   params)
                         : db_.run("SELECT " AUTHD_OAUTH_CONSENT_COLUMNS
                                   " FROM oauth_consents WHERE user_id = $1 AND client_id = $2",
                                   params);
  if (rows.rows() == 0) return std::nullopt;
  return read_consent(Row(rows, 0));
}

std::vector<ConsentListing> Consents::list_of_user(std::string_view user_id) {
  Params params;
  params.text(user_id);
  Result rows = db_.run(
      "SELECT c.user_id, c.client_id, c.scopes, c.granted_at, c.updated_at, k.name "
      "FROM oauth_consents AS c JOIN oauth_clients AS k ON k.id = c.client_id "
      "WHERE c.user_id = $1 ORDER BY c.granted_at, c.client_id COLLATE \"C\"",
      params);
  std::vector<ConsentListing> consents;
  consents.reserve(static_cast<std::size_t>(rows.rows()));
  for (int i = 0; i < rows.rows(); ++i) {
    Row row(rows, i);
    consents.push_back(ConsentListing{read_consent(row), row.text(5)});
  }
  return consents;
}

bool Consents::remove(std::string_view user_id, std::string_view client_id) {
  Params params;
  params.text(user_id).text(client_id);
  return db_.run("DELETE FROM oauth_consents WHERE user_id = $1 AND client_id = $2", params)
             .affected() == 1;
}

void Consents::delete_of_user(std::string_view user_id) {
  Params params;
  params.text(user_id);
  db_.run("DELETE FROM oauth_consents WHERE user_id = $1", params);
}

}  // namespace authd::postgres
