// Authorization codes (interface.md 17.6): 256 bits with the prefix
// `authdac_`, kept as digests, single use, valid 60 seconds, bound to what
// they were issued for; and the PKCE proof that redeems one (RFC 7636).
#pragma once

#include <string>
#include <string_view>

#include "auth/oidc/authorization_request.hpp"
#include "auth/policy.hpp"
#include "store/areas/oauth_grants.hpp"

namespace authd {

inline constexpr std::string_view kAuthorizationCodePrefix = "authdac_";
inline constexpr std::string_view kAccessTokenPrefix = "authdat_";

struct IssuedCode {
  std::string code;  // to the client once, never stored
  AuthorizationCodeRecord record;
};

// A used code is kept until every token issued from it has expired, so that
// a second use can still revoke them (17.6).
IssuedCode new_authorization_code(const OidcSettings& oidc,
                                  const AuthorizationParameters& parameters,
                                  const SessionRecord& session, Millis now);

// RFC 7636 4.6: BASE64URL(SHA256(verifier)) equals the challenge, compared
// in constant time; the verifier is 43 to 128 unreserved characters (4.1).
bool pkce_verifier_matches(std::string_view verifier, std::string_view challenge);

}  // namespace authd
