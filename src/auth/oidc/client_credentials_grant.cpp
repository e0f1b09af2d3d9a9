#include "auth/oidc/client_credentials_grant.hpp"

#include <array>

#include "auth/oidc/claims.hpp"
#include "auth/oidc/codes.hpp"
#include "core/ascii.hpp"
#include "crypto/random.hpp"
#include "store/database.hpp"

namespace authd {
namespace {

// The scopes of 17.3 are all about a user: none is grantable to a client
// acting for itself (decision of 17.15). Any other scope is ignored, as at
// /oauth2/authorize (17.4.2).
constexpr std::array<std::string_view, 5> kUserScopes = {"openid", "profile", "email", "phone",
                                                         "offline_access"};
constexpr std::size_t kMaxResourceBytes = 2048;

bool is_user_scope(std::string_view scope) {
  return std::find(kUserScopes.begin(), kUserScopes.end(), scope) != kUserScopes.end();
}

// RFC 3986 3.1: ALPHA *( ALPHA / DIGIT / "+" / "-" / "." ) before the ':'.
bool has_scheme(std::string_view uri) {
  std::size_t colon = uri.find(':');
  if (colon == 0 || colon == std::string_view::npos) return false;
  if (!std::isalpha(static_cast<unsigned char>(uri[0]))) return false;
  for (char c : uri.substr(1, colon - 1))
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '+' && c != '-' && c != '.')
      return false;
  return colon + 1 < uri.size();
}

}  // namespace

std::optional<std::string> resource_problem(std::string_view resource) {
  if (resource.empty() || resource.size() > kMaxResourceBytes)
    return "resource: an absolute URI of at most 2048 bytes";
  for (char c : resource)
    if (c <= ' ' || c > '~') return "resource: printable ASCII, no spaces";
  if (!has_scheme(resource)) return "resource: an absolute URI (RFC 8707 2)";
  if (resource.find('#') != std::string_view::npos) return "resource: no fragment (RFC 8707 2)";
  return std::nullopt;
}

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
  if (request.resource) {
    if (auto problem = resource_problem(*request.resource)) {
      outcome.kind = Kind::invalid_target;
      outcome.description = *problem;
      co_return outcome;
    }
  }
  std::string token = new_secret_token(kAccessTokenPrefix);
  Millis now = now_millis();
  ClientTokenRecord record{sha256(token),
                           client.id,
                           "",
                           request.resource.value_or(""),
                           now,
                           now + ctx.policy.oidc.access_token_ttl.count()};
  auto work = [&](Transaction& tx) { tx.client_tokens().insert(record); };
  if (co_await ctx.db.write(work) != StoreStatus::ok) co_return outcome;
  outcome.kind = Kind::ok;
  outcome.access_token = std::move(token);
  outcome.expires_in = ctx.policy.oidc.access_token_ttl.count() / 1000;
  co_return outcome;
}

}  // namespace authd
