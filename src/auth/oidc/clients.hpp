// The OAuth clients the operator registers (interface.md 17.3): the rules a
// registration must meet, and its creation, change, secret rotation and
// deletion, each with its event (interface.md 14.1: oauth.client_created,
// oauth.client_updated, oauth.client_secret_rotated, oauth.client_deleted;
// the client's id, name and what changed, never a secret). Shared by the
// admin API (asynchronous, on the Database) and `authd client ...`
// (synchronous, on the Store). Pure domain: no HTTP, no SQL.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <boost/asio/awaitable.hpp>

#include "auth/context.hpp"
#include "auth/events/events.hpp"
#include "auth/oidc/redirect_uris.hpp"
#include "store/areas/oauth_clients.hpp"
#include "store/store.hpp"

namespace authd {

// A client secret: this prefix and 256 bits from the CSPRNG (interface.md
// 17.3), shown once, stored as its SHA-256 digest.
inline constexpr std::string_view kClientSecretPrefix = "authdcs_";

// The members of a registration (POST) or of a change (PATCH): each one
// absent when not sent. The API and the CLI check the types; these
// functions check the rules.
struct ClientFields {
  std::optional<std::string> name;
  std::optional<std::string> type;  // "confidential" or "public"
  std::optional<std::vector<std::string>> redirect_uris;
  std::optional<std::vector<std::string>> post_logout_redirect_uris;
  std::optional<std::vector<std::string>> grant_types;
  std::optional<std::vector<std::string>> scopes;
  std::optional<bool> first_party;
  std::optional<std::string> access_token_format;
  std::optional<std::string> id_token_alg;
  std::optional<bool> introspection;
};

// Why `client` is not a valid registration, as "member: rule" for a 400's
// detail; nothing when it is.
std::optional<std::string> client_problem(const OAuthClientRecord& client);

// A new client from `fields` with the defaults of interface.md 17.3 for
// what was not sent, at `now`; `problem` set (and nothing) when a member is
// missing or breaks a rule. The scopes' default leaves offline_access out
// when the grant types leave refresh_token out.
std::optional<OAuthClientRecord> new_client(const ClientFields& fields, Millis now,
                                            std::string& problem);

// Applies a PATCH to `client`: only the members sent; the type cannot
// change. False and `problem` set when the result breaks a rule. `changed`
// gets the API names of the members whose value changed.
bool apply_client_fields(OAuthClientRecord& client, const ClientFields& fields,
                         std::vector<std::string>& changed, std::string& problem);

struct ClientOutcome {
  enum class Kind { ok, invalid, not_found, unavailable } kind = Kind::unavailable;
  std::string problem;  // invalid: the 400's detail
  OAuthClientRecord client;
  std::string secret;  // create (confidential) and rotate: the secret, to be shown once
};

struct ClientList {
  bool ok = false;
  std::vector<OAuthClientRecord> clients;  // oldest first
};

// The admin API's side (interface.md 17.3). Rotation keeps the previous
// secret working for ctx.policy.oidc.secret_overlap.
boost::asio::awaitable<ClientOutcome> create_client(AuthContext& ctx, const ClientFields& fields,
                                                    const EventSource& source);
boost::asio::awaitable<ClientOutcome> read_client(AuthContext& ctx, const std::string& id);
boost::asio::awaitable<ClientList> list_clients(AuthContext& ctx);
boost::asio::awaitable<ClientOutcome> update_client(AuthContext& ctx, const std::string& id,
                                                    const ClientFields& fields,
                                                    const EventSource& source);
boost::asio::awaitable<ClientOutcome> rotate_client_secret(AuthContext& ctx, const std::string& id,
                                                           const EventSource& source);
// Removes the client with its waiting requests, codes, access tokens and
// consents (store/areas/oauth_clients.hpp).
boost::asio::awaitable<ClientOutcome> delete_client(AuthContext& ctx, const std::string& id,
                                                    const EventSource& source);

// The CLI's side (`authd client ...`): the same operations, synchronous.
ClientOutcome create_client(Store& store, const ClientFields& fields, const EventSource& source);
ClientOutcome read_client(Store& store, const std::string& id);
ClientList list_clients(Store& store);
ClientOutcome update_client(Store& store, const std::string& id, const ClientFields& fields,
                            const EventSource& source);
ClientOutcome rotate_client_secret(Store& store, const std::string& id, Duration overlap,
                                   const EventSource& source);
ClientOutcome delete_client(Store& store, const std::string& id, const EventSource& source);

}  // namespace authd
