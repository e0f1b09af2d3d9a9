#include "api/admin_access.hpp"

#include "api/bearer.hpp"
#include "api/credentials.hpp"
#include "api/errors.hpp"
#include "auth/console/operators.hpp"
#include "core/ascii.hpp"
#include "core/wipe.hpp"

namespace authd {
namespace {

bool is_unsafe(std::string_view method) {
  return method != "GET" && method != "HEAD" && method != "OPTIONS";
}

// interface.md 21.2: the console's session by its cookie, for a request
// without an Authorization header. A cookie-authenticated unsafe request
// must come from the listener's own origin (13.5's rule); a read operator
// gets 403 for any change.
boost::asio::awaitable<std::optional<ApiResponse>> console_access_problem(ApiContext& ctx,
                                                                          const ApiRequest& request,
                                                                          AdminScope needed,
                                                                          std::string* actor) {
  if (request.console_cookies.size() != 1)
    co_return bad_request("cookie: malformed console cookie");
  if (is_unsafe(request.method) && !request.same_origin) co_return error_response(403);
  ConsoleCaller caller = co_await authenticate_console(ctx.auth, request.console_cookies.front());
  switch (caller.kind) {
    case ConsoleCaller::Kind::ok:
      break;
    case ConsoleCaller::Kind::invalid:
      co_return error_response(401);
    case ConsoleCaller::Kind::unavailable:
      co_return service_unavailable(std::chrono::seconds(5));
  }
  if (needed == AdminScope::write && caller.scope != AdminScope::write)
    co_return error_response(403);
  if (actor != nullptr) *actor = operator_actor(caller.email);
  co_return std::nullopt;
}

}  // namespace

std::string admin_id(std::string_view text) {
  std::string id(text);
  for (char& c : id) c = ascii_lower(c);
  return id;
}

bool by_console_cookie(const ApiRequest& request) {
  return request.authorization.empty() && request.console_cookie != nullptr &&
         !request.console_cookies.empty();
}

boost::asio::awaitable<std::optional<ApiResponse>> admin_access_problem(ApiContext& ctx,
                                                                        const ApiRequest& request,
                                                                        AdminScope needed,
                                                                        std::string* actor) {
  if (by_console_cookie(request)) {
    std::optional<ApiResponse> problem =
        co_await console_access_problem(ctx, request, needed, actor);
    co_return problem;
  }
  BearerCredentials credentials = parse_bearer(request.authorization);
  WipeOnExit wipe_key(credentials.token);
  if (auto problem = credentials_problem(credentials)) co_return problem;
  AdminCaller caller = co_await authenticate_admin(ctx.auth, credentials.token);
  switch (caller.kind) {
    case AdminCaller::Kind::ok:
      break;
    case AdminCaller::Kind::invalid_key:
      co_return invalid_token();
    case AdminCaller::Kind::unavailable:
      co_return service_unavailable(std::chrono::seconds(5));
  }
  if (needed == AdminScope::write && caller.scope != AdminScope::write)
    co_return error_response(403);
  if (actor != nullptr) *actor = admin_actor(caller.name);
  co_return std::nullopt;
}

}  // namespace authd
