// POST /password (interface.md 11.1): the caller's current password and a
// new one. The checks run in the contract's order (1.10, 11.1): body shape
// and the new password's length (400), credentials (400/401), the rule that
// needs the account (400), the throttles (429), the current password (403).
#include "api/handlers.hpp"

#include "api/credentials.hpp"
#include "api/errors.hpp"
#include "api/json_body.hpp"
#include "api/user_json.hpp"
#include "auth/credentials/password_change.hpp"
#include "auth/credentials/password_rules.hpp"
#include "core/wipe.hpp"

namespace authd {

boost::asio::awaitable<ApiResponse> handle_change_password(ApiContext& ctx, ApiRequest& request) {
  std::string problem;
  auto body = parse_json_object(request.body, problem);
  if (!body) co_return bad_request(problem);
  auto current = take_string(*body, "currentPassword", problem);
  auto proposed = take_string(*body, "newPassword", problem);
  WipeOnExit wipe_current(current);  // on every path out, 400s included
  WipeOnExit wipe_proposed(proposed);
  if (!current || !proposed) co_return bad_request(problem);
  // Whatever a login would refuse cannot be the current password.
  if (!is_valid_login_password(*current))
    co_return bad_request("currentPassword: must be 1 to 255 characters");
  if (auto length_problem = new_password_length_problem(*proposed, "newPassword"))
    co_return bad_request(*length_problem);

  BearerCredentials credentials;
  WipeOnExit wipe_token(credentials.token);
  if (auto credentials_bad = read_credentials(request, credentials)) co_return *credentials_bad;

  const EventSource source = event_source(ctx, request, std::string(kActorSelf));
  PasswordChangeOutcome outcome =
      co_await change_password(ctx.auth, credentials.token, *current, *proposed, source);
  switch (outcome.kind) {
    case PasswordChangeOutcome::Kind::ok:
      co_return json_response(200, user_body(outcome.user));
    case PasswordChangeOutcome::Kind::invalid_token:
      co_return invalid_token();
    case PasswordChangeOutcome::Kind::bad_password:
      co_return bad_request(outcome.problem);
    case PasswordChangeOutcome::Kind::throttled:
      co_return too_many_requests(outcome.retry_after);
    case PasswordChangeOutcome::Kind::wrong_password:
      co_return error_response(403);
    case PasswordChangeOutcome::Kind::busy:
      co_return hashing_busy();
    case PasswordChangeOutcome::Kind::unavailable:
      break;
  }
  co_return service_unavailable(std::chrono::seconds(5));
}

}  // namespace authd
