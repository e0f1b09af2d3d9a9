// The standards' error shapes on the provider's routes (interface.md 17.1),
// instead of section 1's: {"error", "error_description"} on the token
// endpoint (RFC 6749 5.2), a Bearer challenge on userinfo (RFC 6750 3).
// Every answer here carries Cache-Control: no-store.
#pragma once

#include <chrono>
#include <string_view>

#include "api/api.hpp"

namespace authd {

// {"error": code, "error_description": description}, Cache-Control:
// no-store and Pragma: no-cache.
ApiResponse oauth_error(int status, std::string_view code, std::string_view description);

// 401 invalid_client; with `WWW-Authenticate: Basic realm="authd"` when the
// client used HTTP Basic (RFC 6749 5.2).
ApiResponse invalid_client(bool basic_used);

// interface.md 17.7: the client address's failed client authentications are
// over their limit.
ApiResponse oauth_too_many(std::chrono::seconds retry_after);

// 503 with Retry-After, in the standard's shape (temporarily_unavailable).
ApiResponse oauth_unavailable(std::chrono::seconds retry_after);

// RFC 6750 3.1: 401 with `WWW-Authenticate: Bearer realm="authd"` and,
// when a token was sent, `error="invalid_token"`; 403 with
// `error="insufficient_scope"`; 400 `invalid_request` for a malformed
// request.
ApiResponse bearer_error(int status, std::string_view code);

// A 200 JSON answer with Cache-Control: no-store and Pragma: no-cache (the
// token endpoint's).
ApiResponse no_store_json(std::string body);

}  // namespace authd
