// POST /signup (interface.md 11.4): an e-mail, a new password and an
// optional display name. Once they are valid, always the same 200 with the
// canonical e-mail, whether or not the address has an account; the mail
// that follows (a verification link, or the notice that the address has an
// account) goes through the outbox.
#include "api/handlers.hpp"

#include "api/errors.hpp"
#include "api/json_body.hpp"
#include "api/user_json.hpp"
#include "auth/admin/accounts.hpp"
#include "auth/credentials/email.hpp"
#include "auth/credentials/password_rules.hpp"
#include "auth/mail_flows/signup.hpp"
#include "core/wipe.hpp"

namespace authd {

boost::asio::awaitable<ApiResponse> handle_signup(ApiContext& ctx, ApiRequest& request) {
  std::string problem;
  auto body = parse_json_object(request.body, problem);
  if (!body) co_return bad_request(problem);
  auto email = take_string(*body, "email", problem);
  auto password = take_string(*body, "password", problem);
  WipeOnExit wipe_password(password);  // on every path out, 400s included
  std::optional<std::string> display_name;
  if (body->contains("displayName")) {
    display_name = take_string(*body, "displayName", problem);
    if (!display_name) co_return bad_request(problem);
  }
  if (!email || !password) co_return bad_request(problem);
  if (!is_valid_email(*email)) co_return bad_request("email: not a valid address");
  std::string canonical = canonical_email(*email);
  if (auto password_problem = new_password_problem(*password, canonical))
    co_return bad_request(*password_problem);
  if (auto profile = profile_problem({canonical, display_name, std::nullopt, std::nullopt}))
    co_return bad_request(*profile);

  const EventSource source = event_source(ctx, request, std::string(kActorSelf));
  SignupOutcome outcome =
      co_await request_signup(ctx.auth, canonical, *password, display_name, source);
  switch (outcome.kind) {
    case SignupOutcome::Kind::accepted:
      // Exactly the canonical e-mail: nothing about the address's account.
      co_return json_response(200, dump_json({{"email", canonical}}));
    case SignupOutcome::Kind::throttled:
      co_return too_many_requests(outcome.retry_after);
    case SignupOutcome::Kind::busy:
      co_return hashing_busy();
    case SignupOutcome::Kind::unavailable:
      break;
  }
  co_return service_unavailable(std::chrono::seconds(5));
}

}  // namespace authd
