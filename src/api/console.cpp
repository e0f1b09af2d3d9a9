// The operator's console (interface.md 21): GET /console/ and its scripts
// and style sheet, and the console's own session routes: POST
// /console/sign-in (an operator's e-mail, password and TOTP code, for a
// cookie), POST /console/sign-out, GET /console/session (who is signed in).
// Everything else the console shows or changes goes through the admin API
// (api/admin_access.cpp accepts the cookie).
#include "api/admin_access.hpp"
#include "api/errors.hpp"
#include "api/handlers.hpp"
#include "api/json_body.hpp"
#include "api/page_response.hpp"
#include "api/second_factor_body.hpp"
#include "auth/console/operators.hpp"
#include "auth/credentials/email.hpp"
#include "auth/credentials/password_rules.hpp"
#include "auth/login/login.hpp"
#include "core/wipe.hpp"

namespace authd {
namespace {

// Host-only, HttpOnly, SameSite=Strict, for the whole listener (the admin
// API is under /admin); no Max-Age: the browser forgets it when it closes,
// and the server ends it when idle.
std::string console_cookie_header(const ConsoleCookie& cookie, std::string_view value,
                                  bool clearing) {
  std::string header = cookie.name + "=" + std::string(value) + "; HttpOnly" +
                       (cookie.secure ? "; Secure" : "") + "; SameSite=Strict; Path=/";
  if (clearing) header += "; Max-Age=0";
  return header;
}

nlohmann::json session_body(std::string_view email, std::string_view scope, Duration idle) {
  return {{"email", std::string(email)},
          {"scope", std::string(scope)},
          {"idleTimeoutSeconds", std::chrono::duration_cast<std::chrono::seconds>(idle).count()}};
}

// A right password the console refuses: 403 as every 403 (interface.md
// 1.3), the reason in a header of its own.
ApiResponse console_refusal(std::string_view reason) {
  ApiResponse response = error_response(403);
  response.headers.emplace_back("Authd-Console-Refusal", std::string(reason));
  return response;
}

// The sign-in's refusals, as /login words them (interface.md 6 /login),
// and 403 with a reason for a right password the console refuses.
ApiResponse refused_sign_in(const LoginOutcome& outcome) {
  switch (outcome.kind) {
    case LoginOutcome::Kind::invalid_credentials:
      return error_response(401);
    case LoginOutcome::Kind::second_factor_required: {
      ApiResponse response = error_response(401);
      response.headers.emplace_back("Authd-Second-Factor", "totp");
      return response;
    }
    case LoginOutcome::Kind::disabled:
      return error_response(403);
    case LoginOutcome::Kind::not_operator:
      return console_refusal("not-operator");
    case LoginOutcome::Kind::second_factor_missing:
      return console_refusal("second-factor-missing");
    case LoginOutcome::Kind::throttled:
      return too_many_requests(outcome.retry_after);
    case LoginOutcome::Kind::busy:
      return hashing_busy();
    default:
      return service_unavailable(std::chrono::seconds(5));
  }
}

}  // namespace

boost::asio::awaitable<ApiResponse> handle_console_redirect(ApiContext& /*ctx*/,
                                                            ApiRequest& /*request*/) {
  ApiResponse response = no_content();
  response.status = 302;
  response.headers.emplace_back("Location", "/console/");
  co_return response;
}

boost::asio::awaitable<ApiResponse> handle_console_page(ApiContext& /*ctx*/,
                                                        ApiRequest& /*request*/) {
  co_return page_response("console.html");
}

boost::asio::awaitable<ApiResponse> handle_console_script(ApiContext& /*ctx*/,
                                                          ApiRequest& /*request*/) {
  co_return asset_response("console.js", "text/javascript; charset=utf-8");
}

boost::asio::awaitable<ApiResponse> handle_console_admin_script(ApiContext& /*ctx*/,
                                                                ApiRequest& /*request*/) {
  co_return asset_response("console-admin.js", "text/javascript; charset=utf-8");
}

boost::asio::awaitable<ApiResponse> handle_console_style(ApiContext& /*ctx*/,
                                                         ApiRequest& /*request*/) {
  co_return asset_response("console.css", "text/css; charset=utf-8");
}

boost::asio::awaitable<ApiResponse> handle_console_sign_in(ApiContext& ctx, ApiRequest& request) {
  // A sign-in from another origin would sign the browser in to someone
  // else's console (login CSRF): the listener's own origin only.
  if (request.console_cookie == nullptr || !request.same_origin) co_return error_response(403);
  std::string problem;
  auto body = parse_json_object(request.body, problem);
  if (!body) co_return bad_request(problem);
  auto email = take_string(*body, "email", problem);
  auto password = take_string(*body, "password", problem);
  WipeOnExit wipe_password(password);
  SecondFactorInput second;
  take_second_factor(*body, second, problem);
  WipeOnExit wipe_otp(second.otp);
  WipeOnExit wipe_recovery(second.recovery_code);
  if (!email || !password || !problem.empty()) co_return bad_request(problem);
  if (second.passkey) co_return bad_request("passkey: the console takes a TOTP code");
  if (!is_valid_email(*email)) co_return bad_request("email: not a valid address");
  if (!is_valid_login_password(*password))
    co_return bad_request("password: must be 1 to 255 characters");

  const std::string canonical = canonical_email(*email);
  const SessionOrigin origin{request.client_address, request.user_agent};
  const EventSource source = event_source(ctx, request, std::string(kActorSelf));
  const ConsoleLogin console{ctx.auth.policy.console_idle, ctx.auth.policy.console_lifetime};
  LoginOutcome outcome =
      co_await log_in(ctx.auth, canonical, *password, origin, source, second, &console);
  WipeOnExit wipe_token(outcome.token);
  if (outcome.kind != LoginOutcome::Kind::success) co_return refused_sign_in(outcome);
  ApiResponse response = json_response(
      200, session_body(outcome.user.email, outcome.operator_scope, ctx.auth.policy.console_idle)
               .dump());
  response.headers.emplace_back(
      "Set-Cookie", console_cookie_header(*request.console_cookie, outcome.token, false));
  response.headers.emplace_back("Cache-Control", "no-store");
  response.holds_secret = true;
  co_return response;
}

boost::asio::awaitable<ApiResponse> handle_console_sign_out(ApiContext& ctx, ApiRequest& request) {
  if (!by_console_cookie(request)) co_return error_response(401);
  if (!request.same_origin) co_return error_response(403);
  std::string actor;
  if (auto denied = co_await admin_access_problem(ctx, request, AdminScope::read, &actor)) {
    // An idle or unknown session: nothing to end, but the cookie goes.
    if (denied->status != 401) co_return *denied;
  } else {
    const EventSource source = event_source(ctx, request, actor);
    if (!co_await end_console_session(ctx.auth, request.console_cookies.front(), source))
      co_return service_unavailable(std::chrono::seconds(5));
  }
  ApiResponse response = no_content();
  response.headers.emplace_back("Set-Cookie",
                                console_cookie_header(*request.console_cookie, "", true));
  co_return response;
}

boost::asio::awaitable<ApiResponse> handle_console_session(ApiContext& ctx, ApiRequest& request) {
  if (!by_console_cookie(request)) co_return error_response(401);
  if (request.console_cookies.size() != 1)
    co_return bad_request("cookie: malformed console cookie");
  ConsoleCaller caller = co_await authenticate_console(ctx.auth, request.console_cookies.front());
  if (caller.kind == ConsoleCaller::Kind::unavailable)
    co_return service_unavailable(std::chrono::seconds(5));
  if (caller.kind != ConsoleCaller::Kind::ok) co_return error_response(401);
  ApiResponse response = json_response(
      200, session_body(caller.email, admin_scope_name(caller.scope), ctx.auth.policy.console_idle)
               .dump());
  response.headers.emplace_back("Cache-Control", "no-store");
  co_return response;
}

}  // namespace authd
