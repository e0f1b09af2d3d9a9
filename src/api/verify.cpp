// POST /verify (interface.md 11.5): the token of a sign-up mail and the
// password chosen at that sign-up create the account and open its first
// session: 201 with the User and the bearer token in the Authorization
// header, as /login's 200. A wrong password is a 401 that leaves the token
// usable, counted as a failed login of the address.
#include "api/handlers.hpp"

#include "api/errors.hpp"
#include "api/json_body.hpp"
#include "api/user_json.hpp"
#include "auth/credentials/password_rules.hpp"
#include "auth/mail_flows/signup.hpp"
#include "core/wipe.hpp"

namespace authd {

boost::asio::awaitable<ApiResponse> handle_verify(ApiContext& ctx, ApiRequest& request) {
  std::string problem;
  auto body = parse_json_object(request.body, problem);
  if (!body) co_return bad_request(problem);
  auto token = take_string(*body, "token", problem);
  WipeOnExit wipe_token(token);
  auto password = take_string(*body, "password", problem);
  WipeOnExit wipe_password(password);  // on every path out, 400s included
  if (!token || !password) co_return bad_request(problem);
  if (token->empty()) co_return bad_request("token: must not be empty");
  // A login's password rule (3.2): nothing is hashed or counted for a
  // password no sign-up could have chosen.
  if (!is_valid_login_password(*password))
    co_return bad_request("password: must be 1 to 255 characters");

  // Named, not a temporary in the co_await (GCC 12 destroys such a
  // temporary too early: core/offload.hpp).
  const SessionOrigin origin{request.client_address, request.user_agent};
  const EventSource source = event_source(ctx, request, std::string(kActorSelf));
  VerifyOutcome outcome = co_await verify_signup(ctx.auth, *token, *password, origin, source);
  switch (outcome.kind) {
    case VerifyOutcome::Kind::created:
      co_return session_response(201, outcome.user, outcome.token);
    case VerifyOutcome::Kind::invalid_token:
    case VerifyOutcome::Kind::wrong_proof:
      co_return error_response(401);
    case VerifyOutcome::Kind::throttled:
      co_return too_many_requests(outcome.retry_after);
    case VerifyOutcome::Kind::busy:
      co_return hashing_busy();
    case VerifyOutcome::Kind::unavailable:
      break;
  }
  co_return service_unavailable(std::chrono::seconds(5));
}

}  // namespace authd
