// POST /signin/upstream/second-factor (interface.md 18.2.5): the second
// factor of an upstream sign-in whose callback left the flow waiting for
// it. The browser that started the flow (its binder cookie) sends a TOTP
// code, a recovery code or a passkey's assertion, as /login takes them
// (api/second_factor_body.hpp); the right one opens the session as the
// callback would have (18.2.2 item 8), and the answer names where the page
// goes on. The waiting itself is upstream/second_factor.hpp.
#include "api/credentials.hpp"
#include "api/errors.hpp"
#include "api/handlers.hpp"
#include "api/json_body.hpp"
#include "api/second_factor_body.hpp"
#include "api/upstream_pages.hpp"
#include "api/user_json.hpp"
#include "core/wipe.hpp"
#include "upstream/second_factor.hpp"

namespace authd {
namespace {

// The 200: the session cookie (13.5), the binder cleared, and where to go.
ApiResponse signed_in(const ApiContext& ctx, const ApiRequest& request,
                      UpstreamFactorOutcome& outcome) {
  ApiResponse response =
      json_response(200, dump_json({{"location", continuation(*ctx.upstreams, outcome.flow)}}));
  if (request.session_cookie != nullptr) {
    auto lifetime =
        std::chrono::duration_cast<std::chrono::seconds>(ctx.auth.policy.session_lifetime);
    response.headers.emplace_back(
        "Set-Cookie", session_cookie_header(*request.session_cookie, outcome.token, lifetime));
  }
  response.headers.emplace_back("Set-Cookie", binder_cookie(request, "", 0));
  response.holds_secret = true;
  return response;
}

}  // namespace

boost::asio::awaitable<ApiResponse> ask_second_factor(ApiContext& ctx, const ApiRequest& request,
                                                      const UpstreamFlowRecord& flow,
                                                      const std::string& user_id) {
  std::optional<std::string> binder = binder_of(request);
  WipeOnExit wipe_binder(binder);
  if (!binder || !co_await await_upstream_second_factor(ctx.auth, flow, user_id))
    co_return unavailable_page();
  ApiResponse response =
      redirect_to(ctx.upstreams->public_url() + "/signin/upstream/second-factor");
  const auto wait = std::chrono::duration_cast<std::chrono::seconds>(kUpstreamFactorWait);
  response.headers.emplace_back("Set-Cookie",
                                binder_cookie(request, *binder, static_cast<int>(wait.count())));
  response.holds_secret = true;
  co_return response;
}

boost::asio::awaitable<ApiResponse> handle_upstream_second_factor(ApiContext& ctx,
                                                                  ApiRequest& request) {
  // Only authd's own page may answer for the browser: its Origin (13.5), as
  // the consent's answer (17.5); the binder cookie is SameSite=Lax besides.
  if (!request.trusted_origin) co_return error_response(403);
  std::string problem;
  auto body = parse_json_object(request.body, problem);
  if (!body) co_return bad_request(problem);
  SecondFactorInput second;  // as /login: interface.md 12.3, 16.4
  take_second_factor(*body, second, problem);
  WipeOnExit wipe_otp(second.otp);
  WipeOnExit wipe_recovery(second.recovery_code);
  if (!problem.empty()) co_return bad_request(problem);

  std::optional<std::string> binder = binder_of(request);
  WipeOnExit wipe_binder(binder);
  // Named, not temporaries in the co_await (GCC 12: core/offload.hpp).
  const SessionOrigin origin{request.client_address, request.user_agent};
  const EventSource source = event_source(ctx, request, std::string(kActorSelf));
  UpstreamFactorOutcome outcome =
      co_await finish_upstream_second_factor(ctx.auth, binder, second, origin, source);
  WipeOnExit wipe_token(outcome.token);
  switch (outcome.kind) {
    case UpstreamFactorOutcome::Kind::signed_in:
      co_return signed_in(ctx, request, outcome);
    case UpstreamFactorOutcome::Kind::refused: {
      ApiResponse response = error_response(401);
      response.headers.emplace_back("Authd-Second-Factor", outcome.second_factors);
      co_return response;
    }
    case UpstreamFactorOutcome::Kind::no_flow:
      co_return bad_request("no sign-in waits for a second factor in this browser");
    case UpstreamFactorOutcome::Kind::disabled:
      co_return error_response(403);
    case UpstreamFactorOutcome::Kind::throttled:
      co_return too_many_requests(outcome.retry_after);
    case UpstreamFactorOutcome::Kind::unavailable:
      break;
  }
  co_return service_unavailable(std::chrono::seconds(5));
}

}  // namespace authd
