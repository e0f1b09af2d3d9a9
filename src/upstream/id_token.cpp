#include "upstream/id_token.hpp"

#include "crypto/jose.hpp"
#include "crypto/random.hpp"

namespace authd {
namespace {

std::string member_text(const nlohmann::json& object, const char* name) {
  auto it = object.find(name);
  return it != object.end() && it->is_string() ? it->get<std::string>() : std::string();
}

// The key type an algorithm needs.
const char* kty_for(jose::Alg alg) { return alg == jose::Alg::rs256 ? "RSA" : "EC"; }

// The keys that may have signed a token with this header: of the alg's
// type, for signatures, of that alg when the key names one, and of the kid
// when the header names one.
std::vector<const nlohmann::json*> candidate_keys(const nlohmann::json& jwks, jose::Alg alg,
                                                  const std::string& kid) {
  std::vector<const nlohmann::json*> keys;
  auto list = jwks.find("keys");
  if (list == jwks.end() || !list->is_array()) return keys;
  for (const nlohmann::json& key : *list) {
    if (!key.is_object() || member_text(key, "kty") != kty_for(alg)) continue;
    std::string use = member_text(key, "use");
    std::string key_alg = member_text(key, "alg");
    if ((!use.empty() && use != "sig") || (!key_alg.empty() && key_alg != jose::alg_name(alg)))
      continue;
    if (!kid.empty() && member_text(key, "kid") != kid) continue;
    keys.push_back(&key);
  }
  return keys;
}

bool audience_holds(const nlohmann::json& claims, const std::string& client_id) {
  auto aud = claims.find("aud");
  if (aud == claims.end()) return false;
  if (aud->is_string()) return aud->get<std::string>() == client_id;
  if (!aud->is_array() || aud->empty()) return false;
  bool found = false;
  for (const nlohmann::json& item : *aud) found = found || (item.is_string() && item == client_id);
  // Core 3.1.3.7 (4, 5): several audiences need azp, and it must be authd.
  if (aud->size() > 1) return found && member_text(claims, "azp") == client_id;
  return found;
}

std::string claims_refusal(const nlohmann::json& claims, const IdTokenExpectation& expected) {
  if (!claims.is_object()) return "malformed";
  if (member_text(claims, "iss") != expected.issuer) return "iss";
  if (!audience_holds(claims, expected.client_id)) return "aud";
  auto exp = claims.find("exp");
  if (exp == claims.end() || !exp->is_number() ||
      exp->get<double>() + static_cast<double>(expected.leeway) <=
          static_cast<double>(expected.now))
    return "exp";
  auto iat = claims.find("iat");
  if (iat != claims.end() &&
      (!iat->is_number() ||
       iat->get<double>() > static_cast<double>(expected.now + expected.leeway)))
    return "exp";
  if (!constant_time_equal(member_text(claims, "nonce"), expected.nonce) || expected.nonce.empty())
    return "nonce";
  if (member_text(claims, "sub").empty()) return "sub";
  return "";
}

}  // namespace

IdTokenCheck check_id_token(const std::string& compact, const nlohmann::json& jwks,
                            const IdTokenExpectation& expected) {
  IdTokenCheck check;
  std::optional<jose::JwsHeader> header = jose::unverified_header(compact);
  if (!header) {
    check.refusal = "malformed";
    return check;
  }
  // Only the asymmetric algorithms authd knows: `none` and the HMACs (whose
  // key would be the client secret, or a public key misused as one) never.
  std::optional<jose::Alg> alg = jose::alg_from_name(header->alg);
  if (!alg) {
    check.refusal = "alg";
    return check;
  }
  std::vector<const nlohmann::json*> keys = candidate_keys(jwks, *alg, header->kid);
  if (keys.empty()) {
    check.refusal = "unknown_kid";
    return check;
  }
  std::optional<std::string> payload;
  for (const nlohmann::json* key : keys) {
    payload = jose::verify(compact, key->dump());
    if (payload) break;
  }
  if (!payload) {
    check.refusal = "signature";
    return check;
  }
  nlohmann::json claims = nlohmann::json::parse(*payload, nullptr, false);
  check.refusal = claims.is_discarded() ? "malformed" : claims_refusal(claims, expected);
  if (check.ok()) check.claims = std::move(claims);
  return check;
}

}  // namespace authd
