// The admin routes' credentials (interface.md 10.2): an admin key as a
// bearer token, with the answers of the bearer routes when it is missing
// (401), malformed (400) or unknown (401 invalid_token), and 403 for a
// `read` key on a route that changes anything.
#pragma once

#include <optional>

#include "api/api.hpp"
#include "auth/admin_keys.hpp"

namespace authd {

// Nothing when the request may go on; otherwise the answer to give.
boost::asio::awaitable<std::optional<ApiResponse>> admin_access_problem(ApiContext& ctx,
                                                                        const ApiRequest& request,
                                                                        AdminScope needed);

}  // namespace authd
