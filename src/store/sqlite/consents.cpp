// How SQLite stores the users' consents to third-party clients (interface.md
// 17.5): one row per user and client, its scopes as a JSON array; a wider
// consent replaces the scopes and keeps when it was first granted.
#include "store/oauth_columns.hpp"
#include "store/sqlite/connection.hpp"
#include "store/sqlite/transaction.hpp"

namespace authd::sqlite {

void Consents::upsert(const ConsentRecord& c) {
  auto st = db_.prepare("INSERT INTO oauth_consents (" AUTHD_OAUTH_CONSENT_COLUMNS
                        ") VALUES (?1, ?2, ?3, ?4, ?5) ON CONFLICT (user_id, client_id) DO "
                        "UPDATE SET scopes = excluded.scopes, updated_at = excluded.updated_at");
  st.bind(1, c.user_id).bind(2, c.client_id).bind(3, json_list(c.scopes));
  st.bind(4, c.granted_at).bind(5, c.updated_at);
  st.run();
}

std::optional<ConsentRecord> Consents::get(std::string_view user_id, std::string_view client_id) {
  auto st = db_.prepare("SELECT " AUTHD_OAUTH_CONSENT_COLUMNS
                        " FROM oauth_consents WHERE user_id = ?1 AND client_id = ?2");
  st.bind(1, user_id).bind(2, client_id);
  if (!st.step()) return std::nullopt;
  return read_consent(st);
}

std::vector<ConsentListing> Consents::list_of_user(std::string_view user_id) {
  auto st = db_.prepare(
      "SELECT c.user_id, c.client_id, c.scopes, c.granted_at, c.updated_at, k.name "
      "FROM oauth_consents AS c JOIN oauth_clients AS k ON k.id = c.client_id "
      "WHERE c.user_id = ?1 ORDER BY c.granted_at, c.client_id");
  st.bind(1, user_id);
  std::vector<ConsentListing> consents;
  while (st.step()) consents.push_back(ConsentListing{read_consent(st), st.text(5)});
  return consents;
}

bool Consents::remove(std::string_view user_id, std::string_view client_id) {
  auto st = db_.prepare("DELETE FROM oauth_consents WHERE user_id = ?1 AND client_id = ?2");
  st.bind(1, user_id).bind(2, client_id);
  st.run();
  return db_.changes() == 1;
}

void Consents::delete_of_user(std::string_view user_id) {
  auto st = db_.prepare("DELETE FROM oauth_consents WHERE user_id = ?1");
  st.bind(1, user_id);
  st.run();
}

}  // namespace authd::sqlite
