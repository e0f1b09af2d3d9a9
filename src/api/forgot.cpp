// POST /forgot (interface.md 6 /forgot): always the same 200 for a valid
// e-mail, whether or not an account has it; the mail, if any, goes through
// the outbox.
#include "api/handlers.hpp"

#include "api/errors.hpp"
#include "api/json_body.hpp"
#include "api/user_json.hpp"
#include "auth/mail_flows/recovery.hpp"

namespace authd {

boost::asio::awaitable<ApiResponse> handle_forgot(ApiContext& ctx, ApiRequest& request) {
  std::string problem;
  std::optional<std::string> email = take_canonical_email(request.body, problem);
  if (!email) co_return bad_request(problem);

  const std::string& canonical = *email;
  const EventSource source = event_source(ctx, request, std::string(kActorSelf));
  ForgotOutcome outcome = co_await request_password_reset(ctx.auth, canonical, source);
  switch (outcome.kind) {
    case ForgotOutcome::Kind::accepted:
      // Exactly the canonical e-mail: nothing more about the account.
      co_return json_response(200, dump_json({{"email", canonical}}));
    case ForgotOutcome::Kind::throttled:
      co_return too_many_requests(outcome.retry_after);
    case ForgotOutcome::Kind::unavailable:
      break;
  }
  co_return service_unavailable(std::chrono::seconds(5));
}

}  // namespace authd
