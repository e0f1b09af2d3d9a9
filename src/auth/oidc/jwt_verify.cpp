#include "auth/oidc/jwt_verify.hpp"

#include "auth/oidc/signing_key_ring.hpp"
#include "core/ascii.hpp"
#include "crypto/jose.hpp"

namespace authd {
namespace {

bool same_typ(std::string_view typ, std::string_view expected) {
  constexpr std::string_view kMediaPrefix = "application/";
  if (typ.size() > kMediaPrefix.size() &&
      equals_ignoring_case(typ.substr(0, kMediaPrefix.size()), kMediaPrefix))
    typ.remove_prefix(kMediaPrefix.size());
  return equals_ignoring_case(typ, expected);
}

// The key the header names, when it signs or signed: not a next key.
const OpenedSigningKey* key_of(const SigningKeyRing& ring, const jose::JwsHeader& header,
                               Millis now) {
  for (const OpenedSigningKey& key : ring.keys)
    if (key.record.kid == header.kid)
      return key.record.alg == header.alg && key.record.signs_from <= now ? &key : nullptr;
  return nullptr;
}

bool claims_hold(const nlohmann::json& claims, std::string_view issuer, Millis now,
                 bool accept_expired) {
  if (!claims.is_object()) return false;
  auto iss = claims.find("iss");
  if (iss == claims.end() || !iss->is_string() || iss->get<std::string>() != issuer) return false;
  auto exp = claims.find("exp");
  if (exp == claims.end() || !exp->is_number_integer()) return false;
  return accept_expired || exp->get<std::int64_t>() * 1000 > now;
}

}  // namespace

std::optional<VerifiedJwt> verify_own_jwt(const SigningKeyRing& ring, std::string_view issuer,
                                          std::string_view compact, std::string_view expected_typ,
                                          Millis now, bool accept_expired) {
  std::optional<jose::JwsHeader> header = jose::unverified_header(compact);
  if (!header || header->kid.empty() || !same_typ(header->typ, expected_typ)) return std::nullopt;
  const OpenedSigningKey* key = key_of(ring, *header, now);
  if (key == nullptr) return std::nullopt;
  std::optional<std::string> payload = jose::verify(compact, key->key.public_jwk());
  if (!payload) return std::nullopt;
  nlohmann::json claims = nlohmann::json::parse(*payload, nullptr, false);
  if (!claims_hold(claims, issuer, now, accept_expired)) return std::nullopt;
  return VerifiedJwt{header->kid, header->alg, std::move(claims)};
}

}  // namespace authd
