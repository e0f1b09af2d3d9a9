// The admin API's session routes (interface.md 10.4): a user's live
// sessions listed and revoked, one session revoked by its public id, and a
// user's second factors removed.
#include "api/handlers.hpp"

#include "api/admin_access.hpp"
#include "api/errors.hpp"
#include "api/session_json.hpp"
#include "auth/admin/admin_users.hpp"

namespace authd {
namespace {

ApiResponse sessions_response(const AdminSessions& result, bool with_body) {
  switch (result.kind) {
    case AdminSessions::Kind::ok:
      return with_body ? json_response(200, sessions_body(result.sessions, std::nullopt))
                       : no_content();
    case AdminSessions::Kind::not_found:
      return error_response(404);
    case AdminSessions::Kind::unavailable:
      break;
  }
  return service_unavailable(std::chrono::seconds(5));
}

}  // namespace

boost::asio::awaitable<ApiResponse> handle_admin_list_sessions(ApiContext& ctx,
                                                               ApiRequest& request) {
  if (auto denied = co_await admin_access_problem(ctx, request, AdminScope::read))
    co_return *denied;
  AdminSessions result = co_await list_user_sessions(ctx.auth, admin_id(request.path_parameter));
  co_return sessions_response(result, true);
}

boost::asio::awaitable<ApiResponse> handle_admin_revoke_sessions(ApiContext& ctx,
                                                                 ApiRequest& request) {
  std::string admin;
  if (auto denied = co_await admin_access_problem(ctx, request, AdminScope::write, &admin))
    co_return *denied;
  const EventSource source = event_source(ctx, request, admin);
  AdminSessions result =
      co_await revoke_user_sessions(ctx.auth, admin_id(request.path_parameter), source);
  co_return sessions_response(result, false);
}

boost::asio::awaitable<ApiResponse> handle_admin_revoke_session(ApiContext& ctx,
                                                                ApiRequest& request) {
  std::string admin;
  if (auto denied = co_await admin_access_problem(ctx, request, AdminScope::write, &admin))
    co_return *denied;
  const EventSource source = event_source(ctx, request, admin);
  AdminSessions result =
      co_await revoke_session(ctx.auth, admin_id(request.path_parameter), source);
  co_return sessions_response(result, false);
}

boost::asio::awaitable<ApiResponse> handle_admin_reset_mfa(ApiContext& ctx, ApiRequest& request) {
  std::string admin;
  if (auto denied = co_await admin_access_problem(ctx, request, AdminScope::write, &admin))
    co_return *denied;
  const EventSource source = event_source(ctx, request, admin);
  AdminSessions result =
      co_await reset_user_mfa(ctx.auth, admin_id(request.path_parameter), source);
  co_return sessions_response(result, false);
}

}  // namespace authd
