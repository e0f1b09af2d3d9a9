// What the upstream routes share (api/upstream_signin.cpp,
// api/upstream_callback.cpp, interface.md 18.2): the binder cookie, the
// redirects and authd's error pages with fixed messages.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "api/api.hpp"
#include "upstream/provider.hpp"

namespace authd {

// The Set-Cookie of the flow's binder (`max_age` 0: cleared).
std::string binder_cookie(const ApiRequest& request, std::string_view value, int max_age);
// The binder the request carries: exactly one such cookie, or nothing.
std::optional<std::string> binder_of(const ApiRequest& request);

ApiResponse redirect_to(std::string location);
ApiResponse error_page(int status, std::string_view message);
ApiResponse not_ready_page();
ApiResponse unavailable_page();

// The configured provider the path names; null when none (404).
const UpstreamProvider* provider_of(const ApiContext& ctx, const ApiRequest& request);

}  // namespace authd
