// POST /oauth2/introspect (interface.md 17.11, RFC 7662): whether a token
// is active, and what it is, for a confidential client registered with
// `introspection: true` that has authenticated as at the token endpoint.
// Inactive is `{"active": false}` and nothing more, whatever the reason:
// unknown, expired, revoked, a used refresh token, a disabled account, or
// a token foreign to the caller (a refresh token of another client; an
// access token bound to a resource, RFC 8707, and issued to another
// client). Access tokens for the issuer's audience are introspectable by
// any client allowed to introspect.
#pragma once

#include <string>
#include <string_view>

#include <boost/asio/awaitable.hpp>
#include <nlohmann/json.hpp>

#include "auth/context.hpp"
#include "store/areas/oauth_clients.hpp"
#include "store/areas/oauth_grants.hpp"
#include "store/areas/oauth_tokens.hpp"

namespace authd {

// A confidential client registered with `introspection: true` (a public
// client proves nothing by its client_id alone).
bool may_introspect(const OAuthClientRecord& client);

struct IntrospectionOutcome {
  enum class Kind { ok, unavailable } kind = Kind::unavailable;
  nlohmann::json answer;  // ok: RFC 7662 2.2's object
};

// The answers, given what the store holds (each checks expiry against
// `now`, the account, and the caller, as above). `issuer` is the `iss`,
// and the `aud` of a token without a resource.
nlohmann::json inactive_token();
nlohmann::json user_access_token_answer(const AccessTokenUser& found,
                                        const OAuthClientRecord& caller, std::string_view issuer,
                                        Millis now);
nlohmann::json client_token_answer(const ClientTokenRecord& token, const OAuthClientRecord& caller,
                                   std::string_view issuer, Millis now);
// `account_usable`: the token's user exists and is not disabled.
nlohmann::json refresh_token_answer(const RefreshTokenRecord& token, bool account_usable,
                                    const OAuthClientRecord& caller, std::string_view issuer,
                                    Millis now);

// The answer about `token` for `caller` (authenticated already, and
// may_introspect).
// `token_type_hint` is a hint only (RFC 7662 2.1): every kind is looked up.
boost::asio::awaitable<IntrospectionOutcome> introspect(AuthContext& ctx,
                                                        const OAuthClientRecord& caller,
                                                        const std::string& token);

}  // namespace authd
