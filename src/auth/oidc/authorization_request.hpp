// An authorization request's parameters (interface.md 17.4), checked once
// the client and its redirect URI are known good: what may then be wrong is
// answered to the client by a redirect, never on authd's own page.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "store/areas/oauth_clients.hpp"

namespace authd {

// The scopes authd knows (17.4); offline_access asks for refresh tokens
// (17.10).
inline constexpr std::string_view kOpenIdScope = "openid";

struct AuthorizationParameters {
  std::string client_id;
  std::string redirect_uri;             // exactly as sent (and registered, 17.3)
  std::vector<std::string> scopes;      // granted: requested, known and allowed, each once
  std::optional<std::string> state;     // returned as sent
  std::optional<std::string> nonce;     // into the ID token
  std::string code_challenge;           // S256
  std::optional<std::int64_t> max_age;  // seconds
  bool prompt_none = false;
  bool prompt_login = false;  // "login" or "select_account"
  bool prompt_consent = false;
  std::optional<std::string> login_hint;  // prefills the sign-in page
  std::string resource;                   // RFC 8707 (17.9); empty: the issuer

  bool has_scope(std::string_view scope) const;
  std::string scope_text() const;  // space-separated
};

// A request the client must be told is wrong (RFC 6749 4.1.2.1).
struct AuthorizationError {
  std::string error;        // "invalid_request", "unsupported_response_type", ...
  std::string description;  // for the developer; says which parameter
};

// The state to send back with an error: the request's, unless it was sent
// twice (then none can be trusted).
std::optional<std::string> returnable_state(
    const std::map<std::string, std::string, std::less<>>& values,
    const std::vector<std::string>& repeated);

// Checks every parameter but client_id and redirect_uri (checked before,
// against the client) and fills `out`; an error otherwise.
std::optional<AuthorizationError> check_authorization_parameters(
    const std::map<std::string, std::string, std::less<>>& values,
    const std::vector<std::string>& repeated, const OAuthClientRecord& client,
    AuthorizationParameters& out);

// A waiting request's parameters as stored (AuthorizationRequestRecord),
// and back; nothing when the text is not what to_json wrote.
std::string to_json(const AuthorizationParameters& parameters);
std::optional<AuthorizationParameters> parameters_from_json(std::string_view text);

}  // namespace authd
