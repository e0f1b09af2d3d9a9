// Refresh tokens (interface.md 17.10): issued with the authorization code's
// exchange when offline_access is granted, and redeemed by the token
// endpoint's refresh_token grant, which rotates them: every use gives the
// next token of the family and kills the one presented. A token presented
// again (stolen, or the loser of two concurrent uses) revokes its whole
// family and the family's access tokens. The client has authenticated
// already.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include <boost/asio/awaitable.hpp>

#include "auth/context.hpp"
#include "auth/events/events.hpp"
#include "auth/oidc/token_exchange.hpp"
#include "auth/policy.hpp"
#include "store/areas/oauth_clients.hpp"
#include "store/areas/oauth_grants.hpp"
#include "store/areas/oauth_tokens.hpp"

namespace authd {

inline constexpr std::string_view kRefreshTokenPrefix = "authdrf_";

// offline_access is among `scope` and the client has the refresh_token
// grant (17.10: the one without the other gives no refresh token).
bool offline_access_granted(const OAuthClientRecord& client, std::string_view scope);

// The first token of the family of `code` (named by the code's digest),
// exchanged at `now`; `token` receives the secret, which is never stored.
RefreshTokenRecord first_refresh_token(const OidcSettings& oidc,
                                       const AuthorizationCodeRecord& code, Millis now,
                                       std::string& token);

struct RefreshRequest {
  std::string refresh_token;
  std::optional<std::string> scope;  // a narrower scope (RFC 6749 6); absent: the family's
};

boost::asio::awaitable<TokenOutcome> redeem_refresh_token(AuthContext& ctx,
                                                          const OAuthClientRecord& client,
                                                          const RefreshRequest& request,
                                                          const EventSource& source);

}  // namespace authd
