// Fuzz target: Authorization header parsing for the bearer routes
// (api/bearer.cpp, interface.md 6 /logout 1-2, RFC 6750 2.1). The input is
// split at '\n' into the request's Authorization field values (none, one or
// several), as the HTTP layer hands them over.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>
#include <vector>

#include "api/bearer.hpp"

namespace {

bool is_b64token_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' ||
         c == '.' || c == '_' || c == '~' || c == '+' || c == '/';
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  std::vector<std::string_view> values;
  if (!text.empty()) {
    while (true) {
      auto newline = text.find('\n');
      values.push_back(text.substr(0, newline));
      if (newline == std::string_view::npos) break;
      text.remove_prefix(newline + 1);
    }
  }
  authd::BearerCredentials credentials = authd::parse_bearer(values);
  using Kind = authd::BearerCredentials::Kind;
  if (credentials.kind != Kind::token) {
    if (!credentials.token.empty()) std::abort();  // no token leaks out of a refusal
    if (values.size() > 1 && credentials.kind != Kind::malformed) std::abort();
    return 0;
  }
  // A token: exactly one header, and a b64token (1*b64char *"=") that is the
  // end of that header's value.
  if (values.size() != 1) std::abort();
  const auto& token = credentials.token;
  std::size_t i = 0;
  while (i < token.size() && is_b64token_char(token[i])) ++i;
  if (i == 0) std::abort();
  while (i < token.size() && token[i] == '=') ++i;
  if (i != token.size()) std::abort();
  std::string_view value = values.front();
  if (value.size() < token.size() + 7 || value.substr(value.size() - token.size()) != token)
    std::abort();
  return 0;
}
