// POST /reset (interface.md 7.2): a reset token from the mail and a new
// password. The checks run in the contract's order: body shape and password
// length (400), the token (401), the rules that need the account (400).
#include "api/handlers.hpp"

#include "api/errors.hpp"
#include "api/json_body.hpp"
#include "api/user_json.hpp"
#include "auth/credentials/password_rules.hpp"
#include "auth/mail_flows/recovery.hpp"
#include "core/wipe.hpp"

namespace authd {

boost::asio::awaitable<ApiResponse> handle_reset(ApiContext& ctx, ApiRequest& request) {
  std::string problem;
  auto body = parse_json_object(request.body, problem);
  if (!body) co_return bad_request(problem);
  auto token = take_string(*body, "token", problem);
  auto password = take_string(*body, "password", problem);
  WipeOnExit wipe_token(token);  // both are secrets, on every path out
  WipeOnExit wipe_password(password);
  if (!token || !password) co_return bad_request(problem);
  if (token->empty()) co_return bad_request("token: must not be empty");
  if (password->empty()) co_return bad_request("password: must not be empty");
  if (auto length_problem = new_password_length_problem(*password))
    co_return bad_request(*length_problem);

  const EventSource source = event_source(ctx, request, std::string(kActorSelf));
  ResetOutcome outcome = co_await reset_password(ctx.auth, *token, *password, source);
  switch (outcome.kind) {
    case ResetOutcome::Kind::ok:
      co_return json_response(200, user_body(outcome.user));
    case ResetOutcome::Kind::invalid_token:
      co_return error_response(401);
    case ResetOutcome::Kind::bad_password:
      co_return bad_request(outcome.problem);
    case ResetOutcome::Kind::busy:
      co_return hashing_busy();
    case ResetOutcome::Kind::unavailable:
      break;
  }
  co_return service_unavailable(std::chrono::seconds(5));
}

}  // namespace authd
