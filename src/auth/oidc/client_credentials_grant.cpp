#include "auth/oidc/client_credentials_grant.hpp"

#include <array>

#include "auth/oidc/access_tokens.hpp"
#include "auth/oidc/claims.hpp"
#include "auth/oidc/codes.hpp"
#include "core/ascii.hpp"
#include "core/log.hpp"
#include "crypto/random.hpp"
#include "store/database.hpp"

namespace authd {
namespace {

// The scopes of 17.3 are all about a user: none is grantable to a client
// acting for itself (decision of 17.15). Any other scope is ignored, as at
// /oauth2/authorize (17.4.2).
constexpr std::array<std::string_view, 5> kUserScopes = {"openid", "profile", "email", "phone",
                                                         "offline_access"};
bool is_user_scope(std::string_view scope) {
  return std::find(kUserScopes.begin(), kUserScopes.end(), scope) != kUserScopes.end();
}

}  // namespace

boost::asio::awaitable<ClientCredentialsOutcome> issue_client_token(
    AuthContext& ctx, const OAuthClientRecord& client, const ClientCredentialsRequest& request) {
  using Kind = ClientCredentialsOutcome::Kind;
  ClientCredentialsOutcome outcome;
  // Registration refuses the grant to public clients (17.3.1); this holds
  // even for a record written otherwise.
  if (!client.confidential || !is_listed(client.grant_types, "client_credentials")) {
    outcome.kind = Kind::unauthorized_client;
    outcome.description = "the client may not use this grant";
    co_return outcome;
  }
  for (const std::string& scope : split_scope(request.scope.value_or(""))) {
    if (!is_user_scope(scope)) continue;
    outcome.kind = Kind::invalid_scope;
    outcome.description = "scope " + scope + " is a user's, and this grant has no user";
    co_return outcome;
  }
  if (request.resource && !is_resource_indicator(*request.resource)) {
    outcome.kind = Kind::invalid_target;
    outcome.description = "resource: one absolute URI without a fragment (RFC 8707 2)";
    co_return outcome;
  }
  Millis now = now_millis();
  IssuedAccessToken issued;
  try {
    // Opaque, or a JWT whose sub is the client (17.7, 17.9).
    issued =
        issue_access_token(ctx, client, {client.id, "", request.resource.value_or(""), {}}, now);
  } catch (const std::exception& error) {
    log::error("access_token_not_signed", {{"reason", error.what()}});
    co_return outcome;  // unavailable: the keys are not loaded yet
  }
  ClientTokenRecord record{issued.token_digest,           client.id, "",
                           request.resource.value_or(""), now,       issued.expires_at};
  auto work = [&](Transaction& tx) { tx.client_tokens().insert(record); };
  if (co_await ctx.db.write(work) != StoreStatus::ok) co_return outcome;
  outcome.kind = Kind::ok;
  outcome.access_token = std::move(issued.token);
  outcome.expires_in = ctx.policy.oidc.access_token_ttl.count() / 1000;
  co_return outcome;
}

}  // namespace authd
