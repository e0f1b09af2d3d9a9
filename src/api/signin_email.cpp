// Passwordless sign-in by mail (interface.md 19): POST /signin/email asks
// for a mail with a link and a code, always the same 200 for a valid
// e-mail; POST /signin/email/verify signs in with the link's token or the
// address and the code, as /login does with a password (the second factor
// included, and the cookie of 13.5 when on).
#include "api/handlers.hpp"

#include <algorithm>

#include "api/credentials.hpp"
#include "api/errors.hpp"
#include "api/json_body.hpp"
#include "api/second_factor_body.hpp"
#include "api/user_json.hpp"
#include "auth/credentials/email.hpp"
#include "auth/mail_flows/email_signin.hpp"
#include "core/wipe.hpp"

namespace authd {
namespace {

bool is_signin_code(std::string_view code) {
  if (code.size() != static_cast<std::size_t>(kSigninCodeDigits)) return false;
  return std::all_of(code.begin(), code.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// The proof of a verify body: `{token}` or `{email, code}`, never both.
// Nothing and `problem` set for any other shape (interface.md 19.3).
std::optional<EmailProof> take_proof(RequestJson& body, std::string& problem) {
  EmailProof proof;
  proof.token = take_optional_string(body, "token", problem);
  auto email = take_optional_string(body, "email", problem);
  auto code = take_optional_string(body, "code", problem);
  WipeOnExit wipe_code(code);
  if (!problem.empty()) return std::nullopt;
  if (proof.token) {
    if (email || code) problem = "token: give either a token or an email and a code, not both";
    if (proof.token->empty()) problem = "token: must not be empty";
    if (!problem.empty()) wipe(*proof.token);
    return problem.empty() ? std::optional(std::move(proof)) : std::nullopt;
  }
  if (!email || !code) {
    problem = "a token, or an email and a code, are required";
  } else if (!is_valid_email(*email)) {
    problem = "email: not a valid address";
  } else if (!is_signin_code(*code)) {
    problem = "code: must be 8 digits";
  }
  if (!problem.empty()) return std::nullopt;
  proof.email = canonical_email(*email);
  proof.code = *code;
  return proof;
}

}  // namespace

boost::asio::awaitable<ApiResponse> handle_email_signin(ApiContext& ctx, ApiRequest& request) {
  std::string problem;
  std::optional<std::string> canonical = take_canonical_email(request.body, problem);
  if (!canonical) co_return bad_request(problem);

  const EventSource source = event_source(ctx, request, std::string(kActorSelf));
  EmailSigninRequestOutcome outcome = co_await request_email_signin(ctx.auth, *canonical, source);
  switch (outcome.kind) {
    case EmailSigninRequestOutcome::Kind::accepted:
      // Exactly the canonical e-mail: nothing more about the account.
      co_return json_response(200, dump_json({{"email", *canonical}}));
    case EmailSigninRequestOutcome::Kind::throttled:
      co_return too_many_requests(outcome.retry_after);
    case EmailSigninRequestOutcome::Kind::unavailable:
      break;
  }
  co_return service_unavailable(std::chrono::seconds(5));
}

boost::asio::awaitable<ApiResponse> handle_email_signin_verify(ApiContext& ctx,
                                                               ApiRequest& request) {
  std::string problem;
  auto body = parse_json_object(request.body, problem);
  if (!body) co_return bad_request(problem);
  std::optional<EmailProof> proof = take_proof(*body, problem);  // wipes itself
  SecondFactorInput second;  // as /login: interface.md 12.3, 16.4
  take_second_factor(*body, second, problem);
  WipeOnExit wipe_otp(second.otp);
  WipeOnExit wipe_recovery(second.recovery_code);
  if (!proof || !problem.empty()) co_return bad_request(problem);

  // Named, not temporaries in the co_await (GCC 12 destroys such a
  // temporary too early: core/offload.hpp).
  const SessionOrigin origin{request.client_address, request.user_agent};
  const EventSource source = event_source(ctx, request, std::string(kActorSelf));
  EmailSigninOutcome outcome =
      co_await verify_email_signin(ctx.auth, *proof, origin, source, second);
  switch (outcome.kind) {
    case EmailSigninOutcome::Kind::success:
      co_return signed_in_response(request, outcome.user, outcome.token,
                                   ctx.auth.policy.session_lifetime);
    case EmailSigninOutcome::Kind::invalid_proof:
      co_return error_response(401);
    case EmailSigninOutcome::Kind::second_factor_required: {
      ApiResponse response = error_response(401);
      response.headers.emplace_back("Authd-Second-Factor", outcome.second_factors);
      co_return response;
    }
    case EmailSigninOutcome::Kind::disabled:
      co_return error_response(403);
    case EmailSigninOutcome::Kind::throttled:
      co_return too_many_requests(outcome.retry_after);
    case EmailSigninOutcome::Kind::unavailable:
      break;
  }
  co_return service_unavailable(std::chrono::seconds(5));
}

}  // namespace authd
