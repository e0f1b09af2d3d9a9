// POST /admin/users/{id}/password-reset (interface.md 10.4.18): an operator
// (an admin key or the console, 21.1) sends the account's owner a password
// reset mail, as if the owner had asked at /forgot: the same mail, token
// lifetime and per-address mail limits, and the event
// password.reset_requested with the operator as actor.
#include "api/admin_access.hpp"
#include "api/errors.hpp"
#include "api/handlers.hpp"
#include "auth/admin/admin_users.hpp"
#include "auth/mail_flows/recovery.hpp"

namespace authd {

boost::asio::awaitable<ApiResponse> handle_admin_send_reset_mail(ApiContext& ctx,
                                                                 ApiRequest& request) {
  std::string actor;
  if (auto denied = co_await admin_access_problem(ctx, request, AdminScope::write, &actor))
    co_return *denied;
  AdminUserOutcome found = co_await read_admin_user(ctx.auth, admin_id(request.path_parameter));
  if (found.kind == AdminUserOutcome::Kind::not_found) co_return error_response(404);
  if (found.kind != AdminUserOutcome::Kind::ok)
    co_return service_unavailable(std::chrono::seconds(5));
  // A disabled account gets no mail at delivery (mint_reset_token): say so
  // instead of pretending.
  if (found.user.disabled) co_return error_response(409);
  const EventSource source = event_source(ctx, request, actor);
  ForgotOutcome outcome = co_await request_password_reset(ctx.auth, found.user.email, source);
  switch (outcome.kind) {
    case ForgotOutcome::Kind::accepted:
      co_return no_content();
    case ForgotOutcome::Kind::throttled:
      co_return too_many_requests(outcome.retry_after);
    case ForgotOutcome::Kind::unavailable:
      break;
  }
  co_return service_unavailable(std::chrono::seconds(5));
}

}  // namespace authd
