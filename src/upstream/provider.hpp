// An upstream identity provider as the operator configured it
// (interface.md 18.1): one [[upstream]] table of the configuration file.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace authd {

enum class UpstreamKind { oidc, oauth2 };

// Where an `oauth2` provider's answers hold what authd needs (18.1): the
// names of the user-info members. GitHub's shape is the default: `id`,
// `email`, `name` (or `login`), and the e-mails endpoint's
// `[{email, primary, verified}]` for a verified address.
struct ClaimMapping {
  std::string subject = "id";
  std::string email = "email";
  std::string email_verified;  // a boolean member; "": the user info never asserts it
  std::string name = "name";
  std::string fallback_name = "login";
};

struct UpstreamProvider {
  std::string name;  // [a-z0-9-]{1,32}
  UpstreamKind kind = UpstreamKind::oidc;
  std::string label;
  std::string issuer;  // oidc: discovered from {issuer}/.well-known/openid-configuration
  std::string client_id;
  std::string client_secret_file;
  std::string client_secret;  // read from client_secret_file at start; never logged
  std::vector<std::string> scopes;
  bool signup = false;
  // 18.5: keep the token endpoint's answer on the link, sealed (12.2).
  bool keep_tokens = false;
  // oauth2 (oidc: discovered, these stay empty in the configuration).
  std::string authorization_endpoint;
  std::string token_endpoint;
  std::string userinfo_endpoint;
  std::string emails_endpoint;  // GitHub's /user/emails; "" when none
  ClaimMapping claims;
};

// True for a valid provider name (18.1): 1 to 32 of [a-z0-9-].
bool is_upstream_name(std::string_view name);

// Whether `url` may be an upstream endpoint: https, or http on a loopback
// host (a test upstream on this machine).
bool is_upstream_url(std::string_view url);

// The problem of a provider's settings ("" when none): the message names
// the key.
std::string upstream_problem(const UpstreamProvider& provider);

}  // namespace authd
