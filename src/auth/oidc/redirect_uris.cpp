#include "auth/oidc/redirect_uris.hpp"

#include <algorithm>
#include <array>

#include "store/areas/oauth_clients.hpp"

namespace authd {
namespace {

// The loopback hosts of RFC 8252 7.3, as a redirect URI starts with them.
constexpr std::array<std::string_view, 2> kLoopbackPrefixes = {"http://127.0.0.1", "http://[::1]"};

// A loopback URI cut in three: "http://127.0.0.1", the port (without its
// ':'; absent when none was written) and the rest (path and query).
struct LoopbackParts {
  std::string_view host;
  std::optional<std::string_view> port;
  std::string_view rest;
};

std::optional<LoopbackParts> loopback_parts(std::string_view uri) {
  for (std::string_view prefix : kLoopbackPrefixes) {
    if (uri.substr(0, prefix.size()) != prefix) continue;
    LoopbackParts parts{prefix, std::nullopt, uri.substr(prefix.size())};
    if (!parts.rest.empty() && parts.rest.front() == ':') {
      std::size_t end = parts.rest.find_first_of("/?");
      parts.port = parts.rest.substr(1, end == std::string_view::npos ? end : end - 1);
      parts.rest = end == std::string_view::npos ? std::string_view() : parts.rest.substr(end);
    }
    // "http://127.0.0.1.example.com/" is not a loopback URI.
    if (!parts.rest.empty() && parts.rest.front() != '/' && parts.rest.front() != '?')
      return std::nullopt;
    return parts;
  }
  return std::nullopt;
}

// 1 to 65535 in at most five digits.
bool valid_port(std::string_view port) {
  if (port.empty() || port.size() > 5) return false;
  unsigned value = 0;
  for (char c : port) {
    if (c < '0' || c > '9') return false;
    value = value * 10 + static_cast<unsigned>(c - '0');
  }
  return value >= 1 && value <= 65535;
}

bool scheme_char(char c, bool first) {
  bool letter = c >= 'a' && c <= 'z';
  if (first) return letter;
  return letter || (c >= '0' && c <= '9') || c == '+' || c == '-' || c == '.';
}

// The scheme before the first ':', or nothing when there is none of RFC
// 3986's form in lower case.
std::optional<std::string_view> scheme_of(std::string_view uri) {
  std::size_t colon = uri.find(':');
  if (colon == std::string_view::npos || colon == 0) return std::nullopt;
  for (std::size_t i = 0; i < colon; ++i)
    if (!scheme_char(uri[i], i == 0)) return std::nullopt;
  return uri.substr(0, colon);
}

// An https URI's authority: a host, then an optional port of digits.
std::optional<std::string> https_authority_problem(std::string_view authority) {
  std::string_view host = authority;
  std::optional<std::string_view> port;
  if (!host.empty() && host.front() == '[') {
    std::size_t close = host.find(']');
    if (close == std::string_view::npos) return "an IPv6 host in [ ]";
    if (close + 1 < host.size()) {
      if (host[close + 1] != ':') return "a port of digits after the host";
      port = host.substr(close + 2);
    }
    host = host.substr(0, close + 1);
  } else if (std::size_t colon = host.find(':'); colon != std::string_view::npos) {
    port = host.substr(colon + 1);
    host = host.substr(0, colon);
  }
  if (host.empty() || host == "[]") return "an https URI needs a host";
  if (port && !valid_port(*port)) return "a port of 1 to 65535";
  return std::nullopt;
}

// What follows "scheme:" when it starts with "//": the authority, up to
// the path or query.
std::optional<std::string_view> authority_of(std::string_view after_scheme) {
  if (after_scheme.substr(0, 2) != "//") return std::nullopt;
  std::string_view rest = after_scheme.substr(2);
  return rest.substr(0, rest.find_first_of("/?"));
}

std::optional<std::string> character_problem(std::string_view uri) {
  if (uri.empty()) return "must not be empty";
  if (uri.size() > kMaxRedirectUriBytes) return "at most 2048 bytes";
  for (char c : uri)
    if (c < '!' || c > '~') return "printable ASCII only (percent-encode the rest)";
  if (uri.find('#') != std::string_view::npos) return "must not have a fragment";
  if (uri.find('*') != std::string_view::npos) return "no wildcards: each URI in full";
  return std::nullopt;
}

}  // namespace

std::optional<std::string> redirect_uri_problem(std::string_view uri, bool confidential) {
  if (auto problem = character_problem(uri)) return problem;
  std::optional<std::string_view> scheme = scheme_of(uri);
  if (!scheme) return "an absolute URI with a lower-case scheme";
  std::optional<std::string_view> authority = authority_of(uri.substr(scheme->size() + 1));
  // user:password@host hides the real host from whoever reads the URI.
  if (authority && authority->find('@') != std::string_view::npos) return "must not have userinfo";
  if (*scheme == "https") {
    if (!authority) return "an https URI needs a host";
    return https_authority_problem(*authority);
  }
  if (*scheme == "http") {
    std::optional<LoopbackParts> loopback = loopback_parts(uri);
    if (!loopback || (loopback->port && !valid_port(*loopback->port)))
      return "http only on 127.0.0.1 or [::1] (not localhost); https otherwise";
    return std::nullopt;
  }
  if (scheme->find('.') == std::string_view::npos)
    return "https, loopback http, or a private-use scheme holding a '.' (com.example.app)";
  if (confidential) return "a private-use scheme is for public clients only";
  return std::nullopt;
}

std::optional<std::string> redirect_uris_problem(const std::vector<std::string>& uris,
                                                 bool confidential, std::string_view member,
                                                 bool required) {
  std::string name(member);
  if (required && uris.empty()) return name + ": at least one URI";
  if (uris.size() > kMaxRedirectUris) return name + ": at most 50 URIs";
  for (std::size_t i = 0; i < uris.size(); ++i) {
    std::string at = name + "[" + std::to_string(i) + "]: ";
    if (auto problem = redirect_uri_problem(uris[i], confidential)) return at + *problem;
    if (std::find(uris.begin(), uris.begin() + static_cast<std::ptrdiff_t>(i), uris[i]) !=
        uris.begin() + static_cast<std::ptrdiff_t>(i))
      return at + "given twice";
  }
  return std::nullopt;
}

bool redirect_uri_matches(const OAuthClientRecord& client, std::string_view requested) {
  for (const std::string& registered : client.redirect_uris) {
    if (registered == requested) return true;
    // RFC 8252 7.3: a loopback URI's port is the app's choice at run time.
    std::optional<LoopbackParts> mine = loopback_parts(registered);
    if (!mine) continue;
    std::optional<LoopbackParts> theirs = loopback_parts(requested);
    if (theirs && theirs->host == mine->host && theirs->rest == mine->rest &&
        (!theirs->port || valid_port(*theirs->port)))
      return true;
  }
  return false;
}

}  // namespace authd
