#include "upstream/provider.hpp"

#include <algorithm>

#include "core/loopback.hpp"

namespace authd {

bool is_upstream_name(std::string_view name) {
  if (name.empty() || name.size() > 32) return false;
  return std::all_of(name.begin(), name.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-';
  });
}

bool is_upstream_url(std::string_view url) {
  if (url.starts_with("https://")) return url.size() > 8;
  if (!url.starts_with("http://")) return false;
  std::string_view rest = url.substr(7);
  std::string_view authority = rest.substr(0, rest.find_first_of("/?#"));
  if (authority.find('@') != std::string_view::npos) return false;
  std::string_view host = authority;
  if (host.starts_with('[')) {
    host = host.substr(1, host.find(']') == std::string_view::npos ? 0 : host.find(']') - 1);
  } else {
    host = host.substr(0, host.find(':'));
  }
  return !host.empty() && is_loopback_host(host);
}

std::string upstream_problem(const UpstreamProvider& p) {
  if (!is_upstream_name(p.name)) return "name: must be 1 to 32 of a-z, 0-9 and '-'";
  // /signin/email is the mail sign-in's page (interface.md 19).
  if (p.name == "email") return "name: \"email\" is taken by the sign-in by mail";
  if (p.client_id.empty()) return "client-id: required";
  if (p.label.empty()) return "label: required";
  if (p.kind == UpstreamKind::oidc) {
    if (!is_upstream_url(p.issuer))
      return "issuer: must be an https URL (http only on a loopback host)";
    if (!p.authorization_endpoint.empty() || !p.token_endpoint.empty() ||
        !p.userinfo_endpoint.empty() || !p.emails_endpoint.empty())
      return "authorization-endpoint: only for kind = \"oauth2\" (oidc discovers its endpoints)";
    if (std::find(p.scopes.begin(), p.scopes.end(), "openid") == p.scopes.end())
      return "scopes: an oidc provider needs \"openid\"";
    return "";
  }
  if (!p.issuer.empty()) return "issuer: only for kind = \"oidc\"";
  for (const auto& [key, url] : {std::pair{"authorization-endpoint", &p.authorization_endpoint},
                                 std::pair{"token-endpoint", &p.token_endpoint},
                                 std::pair{"userinfo-endpoint", &p.userinfo_endpoint}}) {
    if (!is_upstream_url(*url))
      return std::string(key) + ": must be an https URL (http only on a loopback host)";
  }
  if (!p.emails_endpoint.empty() && !is_upstream_url(p.emails_endpoint))
    return "emails-endpoint: must be an https URL (http only on a loopback host)";
  if (p.claims.subject.empty()) return "subject-claim: must not be empty";
  return "";
}

}  // namespace authd
