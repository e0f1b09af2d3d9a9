// How SQLite stores the registered OAuth clients (interface.md 17.3): one
// row per client, its lists as JSON arrays; removing one removes what was
// issued to it first, in the same transaction.
#include "store/oauth_columns.hpp"
#include "store/sqlite/connection.hpp"
#include "store/sqlite/transaction.hpp"

namespace authd::sqlite {
namespace {

// Binds ?1 .. ?16 in AUTHD_OAUTH_CLIENT_COLUMNS' order.
void bind_client(Statement& st, const OAuthClientRecord& c) {
  st.bind(1, c.id).bind(2, c.name).bind(3, std::int64_t{c.confidential});
  st.bind(4, c.secret_digest).bind(5, c.previous_secret_digest).bind(6, c.previous_secret_until);
  st.bind(7, json_list(c.redirect_uris)).bind(8, json_list(c.post_logout_redirect_uris));
  st.bind(9, json_list(c.grant_types)).bind(10, json_list(c.scopes));
  st.bind(11, std::int64_t{c.first_party}).bind(12, c.access_token_format);
  st.bind(13, c.id_token_alg).bind(14, std::int64_t{c.introspection});
  st.bind(15, c.created_at).bind(16, c.updated_at);
}

}  // namespace

void OAuthClients::insert(const OAuthClientRecord& client) {
  auto st = db_.prepare("INSERT INTO oauth_clients (" AUTHD_OAUTH_CLIENT_COLUMNS
                        ") VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, "
                        "?15, ?16)");
  bind_client(st, client);
  st.run();
}

std::optional<OAuthClientRecord> OAuthClients::by_id(std::string_view id) {
  auto st = db_.prepare("SELECT " AUTHD_OAUTH_CLIENT_COLUMNS " FROM oauth_clients WHERE id = ?1");
  st.bind(1, id);
  if (!st.step()) return std::nullopt;
  return read_oauth_client(st);
}

std::vector<OAuthClientRecord> OAuthClients::list() {
  auto st = db_.prepare("SELECT " AUTHD_OAUTH_CLIENT_COLUMNS
                        " FROM oauth_clients ORDER BY created_at, id");
  std::vector<OAuthClientRecord> clients;
  while (st.step()) clients.push_back(read_oauth_client(st));
  return clients;
}

// ?15 (created_at) is bound and not used: one binding for both statements.
bool OAuthClients::update(const OAuthClientRecord& client) {
  auto st = db_.prepare(
      "UPDATE oauth_clients SET name = ?2, confidential = ?3, secret_digest = ?4, "
      "previous_secret_digest = ?5, previous_secret_until = ?6, redirect_uris = ?7, "
      "post_logout_redirect_uris = ?8, grant_types = ?9, scopes = ?10, first_party = ?11, "
      "access_token_format = ?12, id_token_alg = ?13, introspection = ?14, updated_at = ?16 "
      "WHERE id = ?1");
  bind_client(st, client);
  st.run();
  return db_.changes() == 1;
}

bool OAuthClients::remove(std::string_view id) {
  auto requests = db_.prepare("DELETE FROM oauth_authorization_requests WHERE client_id = ?1");
  requests.bind(1, id);
  requests.run();
  auto codes = db_.prepare("DELETE FROM oauth_codes WHERE client_id = ?1");
  codes.bind(1, id);
  codes.run();
  auto tokens = db_.prepare("DELETE FROM oauth_access_tokens WHERE client_id = ?1");
  tokens.bind(1, id);
  tokens.run();
  auto client_tokens = db_.prepare("DELETE FROM oauth_client_tokens WHERE client_id = ?1");
  client_tokens.bind(1, id);
  client_tokens.run();
  auto refresh = db_.prepare("DELETE FROM oauth_refresh_tokens WHERE client_id = ?1");
  refresh.bind(1, id);
  refresh.run();
  auto consents = db_.prepare("DELETE FROM oauth_consents WHERE client_id = ?1");
  consents.bind(1, id);
  consents.run();
  auto client = db_.prepare("DELETE FROM oauth_clients WHERE id = ?1");
  client.bind(1, id);
  client.run();
  return db_.changes() == 1;
}

}  // namespace authd::sqlite
