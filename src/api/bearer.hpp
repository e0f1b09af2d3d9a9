// Parsing of the Authorization header for bearer routes (interface.md 6
// /logout 1-2, RFC 6750 section 2.1).
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace authd {

struct BearerCredentials {
  enum class Kind {
    token,      // a well-formed bearer token
    missing,    // no Authorization header, or another scheme: 401
    malformed,  // Bearer with bad credentials, or several headers: 400
  } kind = Kind::missing;
  std::string token;
};

// `values` holds every Authorization field value of the request.
BearerCredentials parse_bearer(const std::vector<std::string_view>& values);

}  // namespace authd
