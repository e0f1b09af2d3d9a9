// The claims authd answers about a user (interface.md 17.8): in ID tokens
// and from /oauth2/userinfo, by scope (Core 5.4), absent values omitted.
#pragma once

#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "auth/policy.hpp"
#include "store/areas/oauth_grants.hpp"

namespace authd {

std::vector<std::string> split_scope(std::string_view scope);

// Whether `word` is one of `words` (scopes, grant types).
inline bool is_listed(const std::vector<std::string>& words, std::string_view word) {
  return std::find(words.begin(), words.end(), word) != words.end();
}

// `sub` and the claims of the scopes in `scope` (space-separated): email ->
// email, email_verified; profile -> name, picture, updated_at; phone ->
// phone_number, phone_number_verified.
nlohmann::json user_claims(const UserRecord& user, std::string_view scope);

// An ID token's claims for the code `code` of `user`, issued at `now`.
nlohmann::json id_token_claims(const OidcSettings& oidc, const AuthorizationCodeRecord& code,
                               const UserRecord& user, Millis now);

}  // namespace authd
