// The admin routes' credentials (interface.md 10.2): an admin key as a
// bearer token, with the answers of the bearer routes when it is missing
// (401), malformed (400) or unknown (401 invalid_token), and 403 for a
// `read` key on a route that changes anything. Without an Authorization
// header, the operator console's session cookie (interface.md 21.2) is
// accepted instead, with the same scopes.
#pragma once

#include <optional>

#include "api/api.hpp"
#include "auth/admin/admin_keys.hpp"

namespace authd {

// The {id} of an admin route (a user's or a session's), or a cursor, as
// authd writes ids: UUIDs are case-insensitive on input (RFC 9562), and
// authd stores them in lower case.
std::string admin_id(std::string_view text);

// Whether the request presents the console's cookie and no Authorization.
bool by_console_cookie(const ApiRequest& request);

// Nothing when the request may go on; otherwise the answer to give.
// `actor`, when given, gets the actor of the events the request records
// (interface.md 14.1): "admin:NAME" for a key, "operator:EMAIL" for a
// console session (21.2).
boost::asio::awaitable<std::optional<ApiResponse>> admin_access_problem(
    ApiContext& ctx, const ApiRequest& request, AdminScope needed, std::string* actor = nullptr);

}  // namespace authd
