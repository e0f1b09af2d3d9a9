// POST /login (interface.md 6 /login): e-mail and password for a User and a
// bearer token in the Authorization response header (and in a cookie when
// cookie sessions are on: interface.md 13.5).
#include "api/handlers.hpp"

#include "api/credentials.hpp"
#include "api/errors.hpp"
#include "api/json_body.hpp"
#include "api/second_factor_body.hpp"
#include "api/user_json.hpp"
#include "auth/credentials/email.hpp"
#include "auth/credentials/password_rules.hpp"
#include "auth/login/login.hpp"
#include "core/wipe.hpp"

namespace authd {

boost::asio::awaitable<ApiResponse> handle_login(ApiContext& ctx, ApiRequest& request) {
  std::string problem;
  auto body = parse_json_object(request.body, problem);
  if (!body) co_return bad_request(problem);
  auto email = take_string(*body, "email", problem);
  auto password = take_string(*body, "password", problem);
  WipeOnExit wipe_password(password);  // on every path out, 400s included
  // interface.md 12.3: the second factor, for an account that has one; for
  // any other only the types are checked.
  SecondFactorInput second;
  take_second_factor(*body, second, problem);
  WipeOnExit wipe_otp(second.otp);
  WipeOnExit wipe_recovery(second.recovery_code);
  if (!email || !password || !problem.empty()) co_return bad_request(problem);
  if (!is_valid_email(*email)) co_return bad_request("email: not a valid address");
  if (!is_valid_login_password(*password))
    co_return bad_request("password: must be 1 to 255 characters");

  std::string canonical = canonical_email(*email);
  // Named, not a temporary in the co_await (GCC 12 destroys such a
  // temporary too early: core/offload.hpp).
  const SessionOrigin origin{request.client_address, request.user_agent};
  const EventSource source = event_source(ctx, request, std::string(kActorSelf));
  LoginOutcome outcome = co_await log_in(ctx.auth, canonical, *password, origin, source, second);
  switch (outcome.kind) {
    case LoginOutcome::Kind::success:
      co_return signed_in_response(request, outcome.user, outcome.token,
                                   ctx.auth.policy.session_lifetime);
    case LoginOutcome::Kind::invalid_credentials:
      co_return error_response(401);
    case LoginOutcome::Kind::second_factor_required: {
      ApiResponse response = error_response(401);
      response.headers.emplace_back("Authd-Second-Factor", outcome.second_factors);
      co_return response;
    }
    case LoginOutcome::Kind::disabled:
      co_return error_response(403);
    case LoginOutcome::Kind::throttled:
      co_return too_many_requests(outcome.retry_after);
    case LoginOutcome::Kind::busy:
      co_return hashing_busy();
    case LoginOutcome::Kind::not_operator:           // the console's only
    case LoginOutcome::Kind::second_factor_missing:  // (api/console.cpp)
    case LoginOutcome::Kind::unavailable:
      break;
  }
  co_return service_unavailable(std::chrono::seconds(5));
}

}  // namespace authd
