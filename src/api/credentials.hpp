// The answers every bearer route gives for credentials it cannot use
// (interface.md 6 /logout 1-3; the same for /me, /password, /sessions).
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "api/api.hpp"
#include "api/bearer.hpp"
#include "core/duration.hpp"
#include "store/records.hpp"

namespace authd {

// 401 with `WWW-Authenticate: Bearer realm="authd"` (missing) or 400 with
// error="invalid_request" (malformed); nothing for a well-formed token.
std::optional<ApiResponse> credentials_problem(const BearerCredentials& credentials);

// 401 with error="invalid_token": unknown, expired or revoked.
ApiResponse invalid_token();

// The session cookie's value when cookie sessions are on and the request
// carries exactly one; otherwise the browser counts as signed out (the
// OpenID provider's pages, interface.md 17.5, 17.13).
std::optional<std::string> single_session_cookie(const ApiRequest& request);

// The credentials of a bearer route's request (interface.md 13.5): the
// Authorization header when one is sent; otherwise the session cookie, when
// cookie sessions are on and the request carries it. Fills `credentials`
// and returns the answer when they cannot be used: 400/401 as
// credentials_problem says, and 403 for a state-changing request (any
// method but GET, HEAD and OPTIONS) authenticated by the cookie whose
// Origin is neither authd's public origin nor an allowed CORS origin: what
// a page of another origin can make a browser send, it must not be able to
// make authd do. The same 403 for a trusted proxy's subrequest (13.4) whose
// X-Original-Method changes state and whose X-Original-Origin is not one of
// those: what it must not make authd do, it must not make the services
// behind a gateway do either.
std::optional<ApiResponse> read_credentials(const ApiRequest& request,
                                            BearerCredentials& credentials);

// The Set-Cookie of a new session (POST /login), and the one that clears
// the cookie (POST /logout).
std::string session_cookie_header(const SessionCookie& cookie, std::string_view token,
                                  std::chrono::seconds lifetime);
std::string clearing_cookie_header(const SessionCookie& cookie);

// The 200 of a new session (POST /login, POST /webauthn/login): the User,
// the token in the Authorization header, and in the cookie when cookie
// sessions are on, for as long as the session lives. `token` is wiped.
ApiResponse signed_in_response(const ApiRequest& request, const UserRecord& user,
                               std::string& token, Duration session_lifetime);

// Every value of the cookie `name` in the request's Cookie fields
// (RFC 6265 5.4: "name=value" pairs separated by "; ").
std::vector<std::string_view> cookie_values(const std::vector<std::string_view>& fields,
                                            std::string_view name);

}  // namespace authd
