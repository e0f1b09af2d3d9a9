// Sign-in through upstream identity providers (interface.md 18.2, 18.4):
// GET /signin/{name} sends the browser to the provider, GET
// /signin/{name}/callback comes back from it and signs in (then continues
// the waiting authorization request of 17.5, or goes to a return path on
// authd's own origin), and POST /identities/{name} starts a link for the
// signed-in caller. The flow's binder rides in a short-lived HttpOnly
// cookie; every error is authd's own page with a fixed message (nothing
// the upstream said is shown).
#include "api/credentials.hpp"
#include "api/errors.hpp"
#include "api/form_body.hpp"
#include "api/handlers.hpp"
#include "api/json_body.hpp"
#include "api/oauth_pages.hpp"
#include "api/upstream_pages.hpp"
#include "api/user_json.hpp"
#include "auth/sessions/session.hpp"
#include "core/log.hpp"
#include "core/wipe.hpp"
#include "upstream/flows.hpp"

namespace authd {
namespace {

// The upstream's authorization URL, the binder set as the cookie.
ApiResponse started(const ApiRequest& request, UpstreamStart& start) {
  if (start.kind == UpstreamStart::Kind::not_ready) return not_ready_page();
  if (start.kind != UpstreamStart::Kind::ok) return unavailable_page();
  ApiResponse response = redirect_to(start.location);
  const int max_age = static_cast<int>(std::chrono::seconds(kUpstreamFlowLifetime).count());
  response.headers.emplace_back("Set-Cookie", binder_cookie(request, start.binder, max_age));
  response.holds_secret = true;
  wipe(start.binder);
  return response;
}

}  // namespace

boost::asio::awaitable<ApiResponse> handle_upstream_signin(ApiContext& ctx, ApiRequest& request) {
  const UpstreamProvider* provider = provider_of(ctx, request);
  if (provider == nullptr) co_return error_response(404);
  std::optional<FormParameters> query = parse_form(request.query);
  UpstreamFlowIntent intent;
  if (query) {
    if (const std::string* id = query->find("request")) intent.request_id = *id;
    if (const std::string* path = query->find("return")) intent.return_path = *path;
  }
  // 18.2: only a path of authd's own origin (no open redirect).
  if (!query || query->is_repeated("request") || query->is_repeated("return") ||
      intent.request_id.size() > 128 ||
      (!intent.return_path.empty() && !is_return_path(intent.return_path)))
    co_return error_page(400, "This sign-in link is malformed. Go back and try again.");
  UpstreamStart start = co_await start_upstream_flow(ctx.auth, *ctx.upstreams, *provider, intent);
  co_return started(request, start);
}

boost::asio::awaitable<ApiResponse> handle_upstream_link(ApiContext& ctx, ApiRequest& request) {
  BearerCredentials credentials;
  WipeOnExit wipe_token(credentials.token);
  if (auto problem = read_credentials(request, credentials)) co_return *problem;
  const UpstreamProvider* provider = provider_of(ctx, request);
  if (provider == nullptr) co_return error_response(404);
  UpstreamFlowIntent intent;
  intent.purpose = std::string(kUpstreamPurposeLink);
  if (!request.body.empty()) {
    std::string problem;
    auto body = parse_json_object(request.body, problem);
    std::optional<std::string> path;
    if (body) path = take_optional_string(*body, "returnTo", problem);
    if (path && !is_return_path(*path)) problem = "returnTo: must be a path on authd's origin";
    if (!problem.empty()) co_return bad_request(problem);
    intent.return_path = path.value_or("");
  }
  SessionOutcome who = co_await authenticate(ctx.auth, credentials.token);
  if (who.kind == SessionOutcome::Kind::invalid_token) co_return invalid_token();
  if (who.kind != SessionOutcome::Kind::ok) co_return service_unavailable(std::chrono::seconds(5));
  intent.user_id = who.user.id;
  UpstreamStart start = co_await start_upstream_flow(ctx.auth, *ctx.upstreams, *provider, intent);
  if (start.kind == UpstreamStart::Kind::not_ready)
    co_return service_unavailable(std::chrono::seconds(10));
  if (start.kind != UpstreamStart::Kind::ok) co_return service_unavailable(std::chrono::seconds(5));
  // 200 with the location (fetch follows no cross-origin redirect usefully):
  // the page then navigates there.
  ApiResponse response = json_response(200, dump_json({{"location", start.location}}));
  const int max_age = static_cast<int>(std::chrono::seconds(kUpstreamFlowLifetime).count());
  response.headers.emplace_back("Set-Cookie", binder_cookie(request, start.binder, max_age));
  response.headers.emplace_back("Cache-Control", "no-store");
  response.holds_secret = true;
  wipe(start.binder);
  co_return response;
}

}  // namespace authd
