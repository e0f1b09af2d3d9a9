// The ID token of an upstream OpenID provider, checked as OpenID Connect
// Core 3.1.3.7 says (interface.md 18.2): a JWS signed with RS256 or ES256
// by a key of the provider's JWKS (never `none`, never an HMAC), whose
// `iss` is the provider's issuer, whose `aud` holds authd's client id
// (and `azp` is it when there are several), unexpired, and whose `nonce`
// is the one of this flow.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

namespace authd {

struct IdTokenExpectation {
  std::string issuer;
  std::string client_id;
  std::string nonce;
  std::int64_t now = 0;      // seconds since the epoch
  std::int64_t leeway = 60;  // seconds of clock skew allowed on exp and iat
};

struct IdTokenCheck {
  // "": valid. Otherwise a fixed word for events and logs: "malformed",
  // "alg", "unknown_kid", "signature", "iss", "aud", "exp", "nonce", "sub".
  std::string refusal;
  nlohmann::json claims;  // when valid
  bool ok() const { return refusal.empty(); }
};

// `jwks`: the provider's key set ({"keys": [...]}).
IdTokenCheck check_id_token(const std::string& compact, const nlohmann::json& jwks,
                            const IdTokenExpectation& expected);

}  // namespace authd
