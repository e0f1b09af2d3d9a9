// The answers every bearer route gives for credentials it cannot use
// (interface.md 6 /logout 1-3; the same for /me, /password, /sessions).
#pragma once

#include <optional>

#include "api/api.hpp"
#include "api/bearer.hpp"

namespace authd {

// 401 with `WWW-Authenticate: Bearer realm="authd"` (missing) or 400 with
// error="invalid_request" (malformed); nothing for a well-formed token.
std::optional<ApiResponse> credentials_problem(const BearerCredentials& credentials);

// 401 with error="invalid_token": unknown, expired or revoked.
ApiResponse invalid_token();

}  // namespace authd
