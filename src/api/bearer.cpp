#include "api/bearer.hpp"

#include <cstring>

#include "core/ascii.hpp"

namespace authd {
namespace {

// RFC 9110 token characters (an auth-scheme is a token).
bool is_tchar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
         (c != '\0' && std::strchr("!#$%&'*+-.^_`|~", c) != nullptr);
}

bool is_b64token_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
         (c != '\0' && std::strchr("-._~+/", c) != nullptr);
}

// RFC 6750: b64token = 1*( ALPHA / DIGIT / "-" / "." / "_" / "~" / "+" / "/" ) *"="
bool is_b64token(std::string_view value) {
  std::size_t i = 0;
  while (i < value.size() && is_b64token_char(value[i])) ++i;
  if (i == 0) return false;
  while (i < value.size() && value[i] == '=') ++i;
  return i == value.size();
}

}  // namespace

BearerCredentials parse_bearer(const std::vector<std::string_view>& values) {
  if (values.empty()) return {};
  if (values.size() > 1) return {BearerCredentials::Kind::malformed, {}};
  std::string_view value = values.front();

  std::size_t scheme_end = 0;
  while (scheme_end < value.size() && is_tchar(value[scheme_end])) ++scheme_end;
  if (!equals_ignoring_case(value.substr(0, scheme_end), "bearer")) return {};  // another scheme

  // One or more spaces (not tabs), then exactly one b64token.
  std::string_view rest = value.substr(scheme_end);
  std::size_t spaces = 0;
  while (spaces < rest.size() && rest[spaces] == ' ') ++spaces;
  std::string_view credentials = rest.substr(spaces);
  if (spaces == 0 || !is_b64token(credentials)) return {BearerCredentials::Kind::malformed, {}};
  return {BearerCredentials::Kind::token, std::string(credentials)};
}

}  // namespace authd
