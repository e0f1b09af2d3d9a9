#include "api/upstream_pages.hpp"

#include "api/credentials.hpp"
#include "api/form_body.hpp"
#include "api/oauth_pages.hpp"
#include "upstream/flows.hpp"
#include "upstream/registry.hpp"

namespace authd {
namespace {

constexpr std::string_view kBinderCookie = "authd_upstream";
constexpr std::string_view kHostBinderCookie = "__Host-authd_upstream";

// The binder cookie is named as the session cookie is: with __Host- when
// that one has it (then Secure and Path=/ are required anyway).
std::string_view binder_name(const ApiRequest& request) {
  const SessionCookie* cookie = request.session_cookie;
  if (cookie != nullptr && cookie->name.starts_with("__Host-")) return kHostBinderCookie;
  return kBinderCookie;
}

bool cookie_secure(const ApiRequest& request) {
  return request.session_cookie == nullptr || request.session_cookie->secure;
}

}  // namespace

// SameSite=Lax: the callback is a top-level navigation from the upstream's
// site, which Lax still sends the cookie with; Strict would not.
std::string binder_cookie(const ApiRequest& request, std::string_view value, int max_age) {
  std::string header(binder_name(request));
  header += "=";
  header += value;
  header += "; Path=/; Max-Age=" + std::to_string(max_age) + "; HttpOnly; SameSite=Lax";
  if (cookie_secure(request)) header += "; Secure";
  return header;
}

bool sets_binder(const ApiRequest& request, const ApiResponse& response) {
  const std::string prefix = std::string(binder_name(request)) + "=";
  for (const auto& [name, value] : response.headers)
    if (name == "Set-Cookie" && value.starts_with(prefix)) return true;
  return false;
}

std::string continuation(const UpstreamRegistry& registry, const UpstreamFlowRecord& flow) {
  if (!flow.request_id.empty())
    return registry.public_url() +
           "/oauth2/authorize/resume?request=" + form_encode(flow.request_id);
  if (!flow.return_path.empty() && is_return_path(flow.return_path))
    return registry.public_url() + flow.return_path;
  return registry.public_url() + "/signed-in";
}

ApiResponse redirect_to(std::string location) {
  ApiResponse response;
  response.status = 302;
  response.content_type = {};
  response.headers.emplace_back("Location", std::move(location));
  response.headers.emplace_back("Cache-Control", "no-store");
  response.headers.emplace_back("Referrer-Policy", "no-referrer");
  return response;
}

ApiResponse error_page(int status, std::string_view message) {
  return oauth_error_page(status, message, "/signin/upstream/callback");
}

ApiResponse not_ready_page() {
  ApiResponse page = error_page(503,
                                "This sign-in provider cannot be reached right now. Try again in "
                                "a moment, or sign in another way.");
  page.headers.emplace_back("Retry-After", "10");
  return page;
}

ApiResponse unavailable_page() {
  ApiResponse page = error_page(503, "authd is briefly unavailable. Try again in a moment.");
  page.headers.emplace_back("Retry-After", "1");
  return page;
}

std::optional<std::string> binder_of(const ApiRequest& request) {
  std::vector<std::string_view> values = cookie_values(request.cookie_fields, binder_name(request));
  if (values.size() != 1 || values.front().empty()) return std::nullopt;
  return std::string(values.front());
}

const UpstreamProvider* provider_of(const ApiContext& ctx, const ApiRequest& request) {
  return ctx.upstreams == nullptr ? nullptr : ctx.upstreams->find(request.path_parameter);
}

}  // namespace authd
