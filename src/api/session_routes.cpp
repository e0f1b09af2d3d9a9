// The bearer routes of a session: POST /logout (interface.md 6 /logout),
// GET /me (interface.md 7.1, 13.4), and the caller's own sessions: GET /sessions,
// DELETE /sessions/{id} and DELETE /sessions (interface.md 11.2-11.3). All
// read the token the same way (the Authorization header, or the session
// cookie: interface.md 13.5) and answer the same 400/401 for bad
// credentials, and 403 for a cookie sent from a foreign origin
// (api/credentials.hpp).
#include "api/handlers.hpp"

#include "api/credentials.hpp"
#include "api/errors.hpp"
#include "api/session_json.hpp"
#include "api/user_json.hpp"
#include "auth/sessions/session.hpp"
#include "core/wipe.hpp"

namespace authd {
namespace {

ApiResponse session_response(const SessionOutcome& outcome) {
  switch (outcome.kind) {
    case SessionOutcome::Kind::ok:
      return json_response(200, user_body(outcome.user));
    case SessionOutcome::Kind::invalid_token:
      return invalid_token();
    case SessionOutcome::Kind::unavailable:
      break;
  }
  return service_unavailable(std::chrono::seconds(5));
}

ApiResponse ending_response(const SessionEnding& ending) {
  switch (ending.kind) {
    case SessionEnding::Kind::ok:
      return no_content();
    case SessionEnding::Kind::not_found:
      return error_response(404);
    case SessionEnding::Kind::invalid_token:
      return invalid_token();
    case SessionEnding::Kind::unavailable:
      break;
  }
  return service_unavailable(std::chrono::seconds(5));
}

// interface.md 13.5: with cookie sessions on, /logout also clears the
// cookie, whenever the session is over or never was (200, 400, 401); not
// on a 403 (a foreign page must not log the browser out) nor on a 503 (the
// session may still be live).
ApiResponse clearing_cookie(const ApiRequest& request, ApiResponse response) {
  if (request.session_cookie == nullptr || response.status == 403 || response.status == 503)
    return response;
  response.headers.emplace_back("Set-Cookie", clearing_cookie_header(*request.session_cookie));
  return response;
}

}  // namespace

boost::asio::awaitable<ApiResponse> handle_logout(ApiContext& ctx, ApiRequest& request) {
  BearerCredentials credentials;
  WipeOnExit wipe_token(credentials.token);
  if (auto problem = read_credentials(request, credentials))
    co_return clearing_cookie(request, std::move(*problem));
  // A request body, if any, is ignored.
  const EventSource source = event_source(ctx, request, std::string(kActorSelf));
  SessionOutcome outcome = co_await log_out(ctx.auth, credentials.token, source);
  co_return clearing_cookie(request, session_response(outcome));
}

boost::asio::awaitable<ApiResponse> handle_me(ApiContext& ctx, ApiRequest& request) {
  BearerCredentials credentials;
  WipeOnExit wipe_token(credentials.token);
  if (auto problem = read_credentials(request, credentials)) co_return *problem;
  SessionOutcome outcome = co_await authenticate(ctx.auth, credentials.token);
  ApiResponse response = session_response(outcome);
  // interface.md 13.4: a gateway that checks the token with a subrequest
  // (nginx auth_request) reads the identity from a header, not the body it
  // does not parse.
  if (outcome.kind == SessionOutcome::Kind::ok)
    response.headers.emplace_back("Authd-User-Id", outcome.user.id);
  co_return response;
}

boost::asio::awaitable<ApiResponse> handle_list_sessions(ApiContext& ctx, ApiRequest& request) {
  BearerCredentials credentials;
  WipeOnExit wipe_token(credentials.token);
  if (auto problem = read_credentials(request, credentials)) co_return *problem;
  OwnSessions own = co_await list_own_sessions(ctx.auth, credentials.token);
  switch (own.kind) {
    case OwnSessions::Kind::ok:
      co_return json_response(200, sessions_body(own.sessions, own.current));
    case OwnSessions::Kind::invalid_token:
      co_return invalid_token();
    case OwnSessions::Kind::unavailable:
      break;
  }
  co_return service_unavailable(std::chrono::seconds(5));
}

// Any id that is not one of the caller's live sessions gets the same 404,
// after the credentials: another user's, unknown, expired and malformed
// ids cannot be told apart.
boost::asio::awaitable<ApiResponse> handle_end_session(ApiContext& ctx, ApiRequest& request) {
  BearerCredentials credentials;
  WipeOnExit wipe_token(credentials.token);
  if (auto problem = read_credentials(request, credentials)) co_return *problem;
  const EventSource source = event_source(ctx, request, std::string(kActorSelf));
  SessionEnding ending =
      co_await end_own_session(ctx.auth, credentials.token, request.path_parameter, source);
  co_return ending_response(ending);
}

boost::asio::awaitable<ApiResponse> handle_end_other_sessions(ApiContext& ctx,
                                                              ApiRequest& request) {
  BearerCredentials credentials;
  WipeOnExit wipe_token(credentials.token);
  if (auto problem = read_credentials(request, credentials)) co_return *problem;
  const EventSource source = event_source(ctx, request, std::string(kActorSelf));
  SessionEnding ending = co_await end_other_sessions(ctx.auth, credentials.token, source);
  co_return ending_response(ending);
}

}  // namespace authd
