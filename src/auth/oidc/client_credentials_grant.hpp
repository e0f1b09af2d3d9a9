// The token endpoint's client_credentials grant (interface.md 17.7, RFC
// 6749 4.4): a confidential client that lists the grant gets an access
// token of its own, whose subject is the client. No ID token, no refresh
// token. The client has authenticated already.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include <boost/asio/awaitable.hpp>

#include "auth/context.hpp"
#include "store/areas/oauth_clients.hpp"

namespace authd {

struct ClientCredentialsRequest {
  std::optional<std::string> scope;
  std::optional<std::string> resource;  // RFC 8707: one absolute URI, no fragment
};

struct ClientCredentialsOutcome {
  enum class Kind {
    ok,
    unauthorized_client,  // a public client
    invalid_scope,        // a user's scope (openid, profile, ...): a machine has no user
    invalid_target,       // resource not an absolute URI without fragment
    unavailable,
  } kind = Kind::unavailable;
  std::string description;      // for the developer, never a secret
  std::string access_token;     // ok: never stored
  std::string scope;            // ok: granted, space-separated; empty: omitted from the answer
  std::int64_t expires_in = 0;  // seconds
};

// Issues an access token to `client`, opaque or a JWT by its
// accessTokenFormat (17.9), stored as its digest in the client tokens,
// valid --oidc-access-token-ttl.
boost::asio::awaitable<ClientCredentialsOutcome> issue_client_token(
    AuthContext& ctx, const OAuthClientRecord& client, const ClientCredentialsRequest& request);

}  // namespace authd
