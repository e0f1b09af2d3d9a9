// What the upstream routes share (api/upstream_signin.cpp,
// api/upstream_callback.cpp, api/upstream_second_factor*.cpp, interface.md 18.2): the binder
// cookie, the redirects and authd's error pages with fixed messages.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "api/api.hpp"
#include "store/areas/upstream_flows.hpp"
#include "upstream/provider.hpp"
#include "upstream/registry.hpp"

namespace authd {

// The Set-Cookie of the flow's binder (`max_age` 0: cleared).
std::string binder_cookie(const ApiRequest& request, std::string_view value, int max_age);
// The binder the request carries: exactly one such cookie, or nothing.
std::optional<std::string> binder_of(const ApiRequest& request);

// Whether `response` sets the binder cookie (then the callback leaves it).
bool sets_binder(const ApiRequest& request, const ApiResponse& response);

// Where a finished flow goes: the waiting authorization request (17.5),
// the return path, or the page /signed-in; always under the public URL.
std::string continuation(const UpstreamRegistry& registry, const UpstreamFlowRecord& flow);

// The callback's answer for an account with a second factor (18.2.5): the
// flow waits for it, the binder cookie is set again for the wait, and the
// browser goes to the page that asks for the factor
// (api/upstream_second_factor.cpp).
boost::asio::awaitable<ApiResponse> ask_second_factor(ApiContext& ctx, const ApiRequest& request,
                                                      const UpstreamFlowRecord& flow,
                                                      const std::string& user_id);

ApiResponse redirect_to(std::string location);
ApiResponse error_page(int status, std::string_view message);
ApiResponse not_ready_page();
ApiResponse unavailable_page();

// The configured provider the path names; null when none (404).
const UpstreamProvider* provider_of(const ApiContext& ctx, const ApiRequest& request);

}  // namespace authd
