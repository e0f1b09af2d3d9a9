// Verifying a JWT that authd signed itself (interface.md 17.9, 17.12): an
// access token presented to /oauth2/userinfo or introspection, an
// id_token_hint. The signature is checked by libcjose (crypto/jose.hpp)
// with the public key of the ring (auth/oidc/signing_key_ring.hpp) that the
// header's kid names: the current key or a retired one still published; a
// next key, which has signed nothing yet, is refused. Then the header's typ
// and the claims iss and exp.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "store/records.hpp"

namespace authd {

struct SigningKeyRing;

struct VerifiedJwt {
  std::string kid;        // the header's
  std::string alg;        // the header's: "RS256" or "ES256"
  nlohmann::json claims;  // the payload, a JSON object
};

// The JWT `compact` when it is a compact JWS signed by a key of `ring`
// whose alg is the header's, with header typ `expected_typ` ("at+jwt",
// "JWT"; compared without case, "application/" prefix allowed, RFC 9068
// 4), claim iss equal to `issuer`, and claim exp (seconds) after `now`
// unless `accept_expired` (an id_token_hint may have expired, RP-Initiated
// Logout 2). Nothing otherwise; the caller checks aud and the rest.
std::optional<VerifiedJwt> verify_own_jwt(const SigningKeyRing& ring, std::string_view issuer,
                                          std::string_view compact, std::string_view expected_typ,
                                          Millis now, bool accept_expired);

}  // namespace authd
