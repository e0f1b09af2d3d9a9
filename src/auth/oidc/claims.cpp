#include "auth/oidc/claims.hpp"

#include <algorithm>

namespace authd {

std::vector<std::string> split_scope(std::string_view scope) {
  std::vector<std::string> words;
  while (!scope.empty()) {
    std::size_t space = scope.find(' ');
    std::string_view word = scope.substr(0, space);
    if (!word.empty()) words.emplace_back(word);
    if (space == std::string_view::npos) break;
    scope.remove_prefix(space + 1);
  }
  return words;
}

nlohmann::json user_claims(const UserRecord& user, std::string_view scope) {
  std::vector<std::string> scopes = split_scope(scope);
  auto has = [&](std::string_view name) {
    return std::find(scopes.begin(), scopes.end(), name) != scopes.end();
  };
  nlohmann::json claims = {{"sub", user.id}};
  if (has("email")) {
    claims["email"] = user.email;
    claims["email_verified"] = user.email_verified_at.has_value();
  }
  if (has("profile")) {
    if (user.display_name) claims["name"] = *user.display_name;
    if (user.photo_url) claims["picture"] = *user.photo_url;
    claims["updated_at"] = epoch_seconds(user.updated_at);
  }
  if (has("phone") && user.phone) {
    claims["phone_number"] = *user.phone;
    claims["phone_number_verified"] = user.phone_verified_at.has_value();
  }
  return claims;
}

nlohmann::json id_token_claims(const OidcSettings& oidc, const AuthorizationCodeRecord& code,
                               const UserRecord& user, Millis now) {
  nlohmann::json claims = user_claims(user, code.scope);
  claims["iss"] = oidc.issuer;
  claims["aud"] = code.client_id;
  claims["azp"] = code.client_id;  // always, and equal to the client (17.15)
  claims["iat"] = epoch_seconds(now);
  claims["exp"] = epoch_seconds(now + oidc.id_token_ttl.count());
  claims["auth_time"] = epoch_seconds(code.auth_time);
  if (!code.nonce.empty()) claims["nonce"] = code.nonce;
  if (!code.session_public_id.empty()) claims["sid"] = code.session_public_id;
  std::vector<std::string> amr = split_scope(code.amr);
  if (!amr.empty()) claims["amr"] = amr;
  return claims;
}

}  // namespace authd
