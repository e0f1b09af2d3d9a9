// The bearer routes: POST /logout (interface.md 6 /logout) and GET /me
// (interface.md 7.1). Both read the token the same way and answer the same
// 400/401 for bad credentials.
#include "api/handlers.hpp"

#include "api/bearer.hpp"
#include "api/errors.hpp"
#include "api/user_json.hpp"
#include "auth/session.hpp"
#include "core/wipe.hpp"

namespace authd {
namespace {

ApiResponse unauthorized(std::string challenge) {
  ApiResponse response = error_response(401);
  response.headers.emplace_back("WWW-Authenticate", std::move(challenge));
  return response;
}

// The 400/401 for a request without usable credentials, or nothing.
std::optional<ApiResponse> credentials_problem(const BearerCredentials& credentials) {
  switch (credentials.kind) {
    case BearerCredentials::Kind::token:
      return std::nullopt;
    case BearerCredentials::Kind::missing:
      return unauthorized(R"(Bearer realm="authd")");
    case BearerCredentials::Kind::malformed: {
      ApiResponse response = bad_request("authorization: malformed bearer credentials");
      response.headers.emplace_back("WWW-Authenticate", R"(Bearer error="invalid_request")");
      return response;
    }
  }
  return std::nullopt;
}

ApiResponse session_response(const SessionOutcome& outcome) {
  switch (outcome.kind) {
    case SessionOutcome::Kind::ok:
      return json_response(200, user_body(outcome.user));
    case SessionOutcome::Kind::invalid_token:
      return unauthorized(R"(Bearer error="invalid_token")");
    case SessionOutcome::Kind::unavailable:
      break;
  }
  return service_unavailable(std::chrono::seconds(5));
}

}  // namespace

boost::asio::awaitable<ApiResponse> handle_logout(ApiContext& ctx, ApiRequest& request) {
  BearerCredentials credentials = parse_bearer(request.authorization);
  WipeOnExit wipe_token(credentials.token);
  if (auto problem = credentials_problem(credentials)) co_return *problem;
  // A request body, if any, is ignored.
  SessionOutcome outcome = co_await log_out(ctx.auth, credentials.token);
  co_return session_response(outcome);
}

boost::asio::awaitable<ApiResponse> handle_me(ApiContext& ctx, ApiRequest& request) {
  BearerCredentials credentials = parse_bearer(request.authorization);
  WipeOnExit wipe_token(credentials.token);
  if (auto problem = credentials_problem(credentials)) co_return *problem;
  SessionOutcome outcome = co_await authenticate(ctx.auth, credentials.token);
  co_return session_response(outcome);
}

}  // namespace authd
