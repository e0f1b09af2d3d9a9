// The token endpoint's authorization_code grant (interface.md 17.6, 17.7):
// a code, its PKCE verifier and redirect URI, for an access token and,
// with the openid scope, an ID token. The client has authenticated already.
#pragma once

#include <cstdint>
#include <string>

#include <boost/asio/awaitable.hpp>

#include "auth/context.hpp"
#include "auth/events/events.hpp"
#include "store/areas/oauth_clients.hpp"

namespace authd {

struct CodeExchange {
  std::string code;
  std::string redirect_uri;
  std::string code_verifier;
  std::string resource;  // RFC 8707, validated; empty: not sent
};

struct TokenOutcome {
  enum class Kind {
    ok,
    invalid_grant,
    invalid_scope,
    unavailable,
    invalid_target
  } kind = Kind::unavailable;
  std::string description;   // invalid_grant, invalid_scope, invalid_target: for the developer,
                             // never a secret
  std::string access_token;  // ok: never stored
  std::string id_token;      // ok, with the openid scope
  std::string scope;
  std::int64_t expires_in = 0;  // seconds
  std::string refresh_token;    // ok, with offline_access granted (17.10): never stored
};

boost::asio::awaitable<TokenOutcome> exchange_code(AuthContext& ctx,
                                                   const OAuthClientRecord& client,
                                                   const CodeExchange& exchange,
                                                   const EventSource& source);

// GET/POST /oauth2/userinfo (17.8): the claims of the access token's user.
struct UserinfoOutcome {
  enum class Kind { ok, invalid_token, insufficient_scope, unavailable } kind = Kind::unavailable;
  std::string claims;  // ok: JSON
};
boost::asio::awaitable<UserinfoOutcome> userinfo(AuthContext& ctx, const std::string& token);

}  // namespace authd
