#include "auth/oidc/authorization_request.hpp"

#include <algorithm>
#include <array>
#include <charconv>

#include <nlohmann/json.hpp>

#include "auth/oidc/access_tokens.hpp"
#include "auth/oidc/claims.hpp"
#include "core/utf8.hpp"

namespace authd {
namespace {

using Values = std::map<std::string, std::string, std::less<>>;

// The scopes authd answers claims for (17.8), and offline_access (17.10).
constexpr std::array<std::string_view, 5> kKnownScopes = {"openid", "profile", "email", "phone",
                                                          "offline_access"};

const std::string* find(const Values& values, std::string_view name) {
  auto found = values.find(name);
  return found == values.end() ? nullptr : &found->second;
}

// Well-formed UTF-8 without NUL: what the waiting request's JSON, the
// code's columns (PostgreSQL text refuses NUL) and the ID token can hold.
bool is_text(std::string_view value) {
  for (std::size_t at = 0; at < value.size();) {
    std::size_t length = utf8_sequence_length(value, at);
    if (length == 0 || value[at] == '\0') return false;
    at += length;
  }
  return true;
}

// RFC 7636 4.2: S256's challenge is the base64url of a SHA-256, 43 characters.
bool is_s256_challenge(std::string_view challenge) {
  return challenge.size() == 43 && std::all_of(challenge.begin(), challenge.end(), [](char c) {
           return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
                  c == '-' || c == '_';
         });
}

std::optional<AuthorizationError> check_prompt(const std::string* prompt,
                                               AuthorizationParameters& out) {
  if (prompt == nullptr) return std::nullopt;
  std::vector<std::string> values = split_scope(*prompt);
  for (const std::string& value : values) {
    if (value == "none")
      out.prompt_none = true;
    else if (value == "login" || value == "select_account")
      out.prompt_login = true;
    else if (value == "consent")
      out.prompt_consent = true;
    else
      return AuthorizationError{"invalid_request", "unknown prompt value"};
  }
  // Core 3.1.2.1: none with any other value is an error.
  if (out.prompt_none && values.size() > 1)
    return AuthorizationError{"invalid_request", "prompt=none cannot be combined"};
  return std::nullopt;
}

std::optional<AuthorizationError> check_max_age(const std::string* text,
                                                AuthorizationParameters& out) {
  if (text == nullptr) return std::nullopt;
  std::int64_t seconds = 0;
  auto [end, error] = std::from_chars(text->data(), text->data() + text->size(), seconds);
  if (error != std::errc() || end != text->data() + text->size() || seconds < 0)
    return AuthorizationError{"invalid_request", "max_age must be a whole number of seconds"};
  out.max_age = seconds;
  return std::nullopt;
}

// Requested scopes the client may have, each once. A scope the client was
// not registered for is refused; one authd does not know is ignored (Core
// 3.1.2.1). offline_access is granted only to a client that has the
// refresh_token grant (17.10), and ignored otherwise.
std::optional<AuthorizationError> check_scopes(const std::string* scope,
                                               const OAuthClientRecord& client,
                                               AuthorizationParameters& out) {
  if (scope == nullptr) return std::nullopt;
  for (const std::string& requested : split_scope(*scope)) {
    if (std::find(kKnownScopes.begin(), kKnownScopes.end(), requested) == kKnownScopes.end())
      continue;
    if (!is_listed(client.scopes, requested))
      return AuthorizationError{"invalid_scope", "scope not allowed for this client: " + requested};
    if (is_listed(out.scopes, requested)) continue;
    if (requested == "offline_access" && !is_listed(client.grant_types, "refresh_token")) continue;
    out.scopes.push_back(requested);
  }
  return std::nullopt;
}

}  // namespace

bool AuthorizationParameters::has_scope(std::string_view scope) const {
  return is_listed(scopes, scope);
}

std::string AuthorizationParameters::scope_text() const {
  std::string text;
  for (const std::string& scope : scopes) {
    if (!text.empty()) text += ' ';
    text += scope;
  }
  return text;
}

std::optional<std::string> returnable_state(const Values& values,
                                            const std::vector<std::string>& repeated) {
  if (is_listed(repeated, "state")) return std::nullopt;
  const std::string* state = find(values, "state");
  return state == nullptr ? std::nullopt : std::optional<std::string>(*state);
}

std::optional<AuthorizationError> check_authorization_parameters(
    const Values& values, const std::vector<std::string>& repeated, const OAuthClientRecord& client,
    AuthorizationParameters& out) {
  // RFC 8707 2 allows several resources; authd takes one (17.9).
  if (is_listed(repeated, "resource"))
    return AuthorizationError{"invalid_target", "only one resource is accepted"};
  // RFC 6749 3.1: no parameter may be sent twice.
  if (!repeated.empty())
    return AuthorizationError{"invalid_request", "parameter sent twice: " + repeated.front()};
  out.state = returnable_state(values, repeated);
  for (const auto& [name, value] : values)
    if (!is_text(name) || !is_text(value))
      return AuthorizationError{"invalid_request", "parameters must be UTF-8 text"};
  if (find(values, "request") != nullptr)
    return AuthorizationError{"request_not_supported", "request objects are not supported"};
  if (find(values, "request_uri") != nullptr)
    return AuthorizationError{"request_uri_not_supported", "request_uri is not supported"};
  const std::string* response_type = find(values, "response_type");
  if (response_type == nullptr)
    return AuthorizationError{"invalid_request", "response_type is missing"};
  if (*response_type != "code")
    return AuthorizationError{"unsupported_response_type", "only response_type=code is served"};
  const std::string* response_mode = find(values, "response_mode");
  if (response_mode != nullptr && *response_mode != "query")
    return AuthorizationError{"invalid_request", "only response_mode=query is served"};
  const std::string* challenge = find(values, "code_challenge");
  const std::string* method = find(values, "code_challenge_method");
  if (challenge == nullptr)
    return AuthorizationError{"invalid_request", "code_challenge is required (PKCE, S256)"};
  if (method == nullptr || *method != "S256")
    return AuthorizationError{"invalid_request", "code_challenge_method must be S256"};
  if (!is_s256_challenge(*challenge))
    return AuthorizationError{"invalid_request", "code_challenge is not an S256 challenge"};
  out.code_challenge = *challenge;
  if (auto error = check_scopes(find(values, "scope"), client, out)) return error;
  if (auto error = check_prompt(find(values, "prompt"), out)) return error;
  if (auto error = check_max_age(find(values, "max_age"), out)) return error;
  if (const std::string* nonce = find(values, "nonce")) out.nonce = *nonce;
  if (const std::string* hint = find(values, "login_hint")) out.login_hint = *hint;
  if (const std::string* resource = find(values, "resource")) {
    if (!is_resource_indicator(*resource))
      return AuthorizationError{"invalid_target",
                                "resource must be an absolute URI without a fragment"};
    out.resource = *resource;
  }
  out.client_id = client.id;
  return std::nullopt;
}

std::string to_json(const AuthorizationParameters& p) {
  nlohmann::json json = {{"client_id", p.client_id},
                         {"redirect_uri", p.redirect_uri},
                         {"scopes", p.scopes},
                         {"code_challenge", p.code_challenge},
                         {"prompt_none", p.prompt_none},
                         {"prompt_login", p.prompt_login},
                         {"prompt_consent", p.prompt_consent}};
  if (p.state) json["state"] = *p.state;
  if (p.nonce) json["nonce"] = *p.nonce;
  if (p.max_age) json["max_age"] = *p.max_age;
  if (p.login_hint) json["login_hint"] = *p.login_hint;
  if (!p.resource.empty()) json["resource"] = p.resource;
  return json.dump();
}

std::optional<AuthorizationParameters> parameters_from_json(std::string_view text) {
  nlohmann::json json = nlohmann::json::parse(text, nullptr, false);
  if (!json.is_object()) return std::nullopt;
  try {
    AuthorizationParameters p;
    p.client_id = json.at("client_id").get<std::string>();
    p.redirect_uri = json.at("redirect_uri").get<std::string>();
    p.scopes = json.at("scopes").get<std::vector<std::string>>();
    p.code_challenge = json.at("code_challenge").get<std::string>();
    p.prompt_none = json.at("prompt_none").get<bool>();
    p.prompt_login = json.at("prompt_login").get<bool>();
    p.prompt_consent = json.at("prompt_consent").get<bool>();
    if (json.contains("state")) p.state = json["state"].get<std::string>();
    if (json.contains("nonce")) p.nonce = json["nonce"].get<std::string>();
    if (json.contains("max_age")) p.max_age = json["max_age"].get<std::int64_t>();
    if (json.contains("login_hint")) p.login_hint = json["login_hint"].get<std::string>();
    if (json.contains("resource")) p.resource = json["resource"].get<std::string>();
    return p;
  } catch (const nlohmann::json::exception&) {
    return std::nullopt;
  }
}

}  // namespace authd
