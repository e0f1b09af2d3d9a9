// The rules of a client registration and its defaults (interface.md 17.3).
#include <algorithm>
#include <array>

#include "auth/admin/accounts.hpp"
#include "auth/oidc/claims.hpp"
#include "auth/oidc/clients.hpp"

namespace authd {
namespace {

constexpr std::array<std::string_view, 3> kGrantTypes = {"authorization_code", "refresh_token",
                                                         "client_credentials"};
constexpr std::array<std::string_view, 5> kScopes = {"openid", "profile", "email", "phone",
                                                     "offline_access"};

template <std::size_t N>
bool one_of(const std::array<std::string_view, N>& known, std::string_view value) {
  return std::find(known.begin(), known.end(), value) != known.end();
}

// Each entry known and given once.
template <std::size_t N>
std::optional<std::string> list_problem(const std::vector<std::string>& list,
                                        const std::array<std::string_view, N>& known,
                                        std::string_view member) {
  for (std::size_t i = 0; i < list.size(); ++i) {
    if (!one_of(known, list[i])) {
      std::string allowed;
      for (std::string_view k : known) allowed += (allowed.empty() ? "" : ", ") + std::string(k);
      return std::string(member) + ": each one of " + allowed;
    }
    if (std::count(list.begin(), list.end(), list[i]) > 1)
      return std::string(member) + ": each given once";
  }
  return std::nullopt;
}

std::optional<std::string> grants_problem(const OAuthClientRecord& client) {
  if (client.grant_types.empty()) return "grantTypes: at least one";
  if (auto problem = list_problem(client.grant_types, kGrantTypes, "grantTypes")) return problem;
  if (!client.confidential && is_listed(client.grant_types, "client_credentials"))
    return "grantTypes: client_credentials is for confidential clients only";
  return std::nullopt;
}

std::optional<std::string> scopes_problem(const OAuthClientRecord& client) {
  if (auto problem = list_problem(client.scopes, kScopes, "scopes")) return problem;
  if (is_listed(client.scopes, "offline_access") && !is_listed(client.grant_types, "refresh_token"))
    return "scopes: offline_access needs refresh_token in grantTypes";
  return std::nullopt;
}

std::optional<bool> confidential_of(const std::string& type) {
  if (type == "confidential") return true;
  if (type == "public") return false;
  return std::nullopt;
}

template <class T>
void set_member(T& member, const std::optional<T>& value, const char* name,
                std::vector<std::string>& changed) {
  if (!value || member == *value) return;
  member = *value;
  changed.emplace_back(name);
}

}  // namespace

std::optional<std::string> client_problem(const OAuthClientRecord& client) {
  if (!is_valid_display_name(client.name))
    return "name: 1 to 255 characters, no control characters";
  if (auto problem =
          redirect_uris_problem(client.redirect_uris, client.confidential, "redirectUris", true))
    return problem;
  if (auto problem = redirect_uris_problem(client.post_logout_redirect_uris, client.confidential,
                                           "postLogoutRedirectUris", false))
    return problem;
  if (auto problem = grants_problem(client)) return problem;
  if (auto problem = scopes_problem(client)) return problem;
  if (client.access_token_format != "opaque" && client.access_token_format != "jwt")
    return "accessTokenFormat: opaque or jwt";
  if (client.id_token_alg != "RS256" && client.id_token_alg != "ES256")
    return "idTokenSignedResponseAlg: RS256 or ES256";
  // 17.11: introspection needs the caller's secret; a client_id is public.
  if (client.introspection && !client.confidential)
    return "introspection: for confidential clients only";
  return std::nullopt;
}

std::optional<OAuthClientRecord> new_client(const ClientFields& fields, Millis now,
                                            std::string& problem) {
  if (!fields.name)
    problem = "name: required";
  else if (!fields.type)
    problem = "type: required";
  else if (!fields.redirect_uris)
    problem = "redirectUris: required";
  if (!problem.empty()) return std::nullopt;
  std::optional<bool> confidential = confidential_of(*fields.type);
  if (!confidential) {
    problem = "type: confidential or public";
    return std::nullopt;
  }
  OAuthClientRecord client;
  client.confidential = *confidential;
  client.grant_types = {"authorization_code", "refresh_token"};
  client.scopes.assign(kScopes.begin(), kScopes.end());
  std::vector<std::string> ignored;
  set_member(client.name, fields.name, "name", ignored);
  set_member(client.redirect_uris, fields.redirect_uris, "redirectUris", ignored);
  set_member(client.post_logout_redirect_uris, fields.post_logout_redirect_uris, "", ignored);
  set_member(client.grant_types, fields.grant_types, "", ignored);
  // The default scopes follow the grant types sent: offline_access only
  // with refresh tokens, rather than a refusal for a member not sent.
  if (!is_listed(client.grant_types, "refresh_token")) std::erase(client.scopes, "offline_access");
  set_member(client.scopes, fields.scopes, "", ignored);
  set_member(client.first_party, fields.first_party, "", ignored);
  set_member(client.access_token_format, fields.access_token_format, "", ignored);
  set_member(client.id_token_alg, fields.id_token_alg, "", ignored);
  set_member(client.introspection, fields.introspection, "", ignored);
  client.created_at = client.updated_at = now;
  if (auto rule = client_problem(client)) {
    problem = *rule;
    return std::nullopt;
  }
  return client;
}

bool apply_client_fields(OAuthClientRecord& client, const ClientFields& fields,
                         std::vector<std::string>& changed, std::string& problem) {
  if (fields.type) {
    std::optional<bool> confidential = confidential_of(*fields.type);
    if (!confidential) {
      problem = "type: confidential or public";
      return false;
    }
    if (*confidential != client.confidential) {
      // A public client has no secret to authenticate with, and a
      // confidential one's redirect URIs and grants were checked as such.
      problem = "type: cannot change; register a new client";
      return false;
    }
  }
  set_member(client.name, fields.name, "name", changed);
  set_member(client.redirect_uris, fields.redirect_uris, "redirectUris", changed);
  set_member(client.post_logout_redirect_uris, fields.post_logout_redirect_uris,
             "postLogoutRedirectUris", changed);
  set_member(client.grant_types, fields.grant_types, "grantTypes", changed);
  set_member(client.scopes, fields.scopes, "scopes", changed);
  set_member(client.first_party, fields.first_party, "firstParty", changed);
  set_member(client.access_token_format, fields.access_token_format, "accessTokenFormat", changed);
  set_member(client.id_token_alg, fields.id_token_alg, "idTokenSignedResponseAlg", changed);
  set_member(client.introspection, fields.introspection, "introspection", changed);
  if (auto rule = client_problem(client)) {
    problem = *rule;
    return false;
  }
  return true;
}

}  // namespace authd
