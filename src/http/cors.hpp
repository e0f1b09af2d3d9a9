// CORS (interface.md 5.2): lets the listed browser origins call authd and
// read the login token from the Authorization response header.
//
// - Only exact origins are allowed (--cors-origins); no wildcard. Access-
//   Control-Allow-Credentials only when cookie sessions are on (interface.md
//   13.5): then an allowed origin's pages may send the cookie and read the
//   answer; without it authd uses bearer tokens only.
// - A preflight (OPTIONS with Origin and Access-Control-Request-Method) from
//   an allowed origin on a known path gets 204 with the path's methods.
//   Anything else that says OPTIONS goes through the router as before, so a
//   plain OPTIONS, or a preflight from an origin not allowed, still gets 405
//   with a correct Allow header, and an unknown path 404.
// - Every other response to an allowed origin carries its
//   Access-Control-Allow-Origin and exposes Authorization, X-Request-Id,
//   WWW-Authenticate (401) and Retry-After (429, 503).
//   Origins not allowed get no CORS header at all.
// - When CORS is on, every response says `Vary: Origin`: a cache between
//   the browser and authd must not serve one origin's answer to another.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "api/api.hpp"
#include "core/duration.hpp"

namespace authd {

// The response headers a page from an allowed origin may read.
inline constexpr const char* kCorsExposedHeaders =
    "Authorization, X-Request-Id, WWW-Authenticate, Retry-After, Authd-Second-Factor";

struct CorsRequest {
  std::string_view method;
  std::string_view path;           // as routed (no query, no base path)
  bool asks_method = false;        // has Access-Control-Request-Method
  OptionalRoutes optional_routes;  // which of the optional routes exist
};

// The allowed origin a request comes from; nothing when CORS is off, the
// request has no single Origin, or the origin is not listed.
std::optional<std::string> allowed_origin(const std::vector<std::string>& allowed,
                                          const std::vector<std::string_view>& origins);

// The 204 answer when `request` is a preflight from the allowed `origin` for
// a known path; nothing otherwise (the router answers it).
std::optional<ApiResponse> answer_preflight(const CorsRequest& request,
                                            const std::optional<std::string>& origin,
                                            Duration max_age, bool credentials);

// Adds the CORS headers of a response (see above); a preflight's answer
// only gets Vary, it has its own.
void add_cors_headers(ApiResponse& response, bool cors_enabled,
                      const std::optional<std::string>& origin, bool preflight, bool credentials);

}  // namespace authd
