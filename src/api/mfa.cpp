// The second-factor routes (interface.md 12.1), each with the caller's
// bearer token: POST /mfa/totp {password}, POST /mfa/totp/confirm {code},
// POST /mfa/totp/remove {code}, POST /mfa/recovery-codes {code}. Checks in
// the order of POST /password (1.10, 11.1): the body's shape (400), the
// credentials (400/401), the state of the factor (409), the throttles
// (429), the proof (403).
#include "api/handlers.hpp"

#include <nlohmann/json.hpp>

#include "api/credentials.hpp"
#include "api/errors.hpp"
#include "api/json_body.hpp"
#include "api/user_json.hpp"
#include "auth/credentials/password_rules.hpp"
#include "auth/second_factor/totp_enrollment.hpp"
#include "core/qr_svg.hpp"
#include "core/wipe.hpp"

namespace authd {
namespace {

// A 200 that carries secrets (the TOTP secret, recovery codes): wiped once
// sent, and never cached (every answer is Cache-Control: no-store).
ApiResponse secret_response(const nlohmann::json& body) {
  ApiResponse response = json_response(200, dump_json(body));
  response.holds_secret = true;
  return response;
}

ApiResponse recovery_codes_response(FactorOutcome& outcome) {
  nlohmann::json codes = outcome.recovery_codes;
  for (std::string& code : outcome.recovery_codes) wipe(code);
  ApiResponse response = secret_response({{"recoveryCodes", std::move(codes)}});
  return response;
}

boost::asio::awaitable<ApiResponse> refusal(FactorOutcome& outcome) {
  switch (outcome.kind) {
    case FactorOutcome::Kind::ok:
      break;
    case FactorOutcome::Kind::invalid_token:
      co_return invalid_token();
    case FactorOutcome::Kind::throttled:
      co_return too_many_requests(outcome.retry_after);
    case FactorOutcome::Kind::wrong_proof:
      co_return error_response(403);
    case FactorOutcome::Kind::conflict:
      co_return error_response(409);
    case FactorOutcome::Kind::busy:
      co_return hashing_busy();
    case FactorOutcome::Kind::unavailable:
      break;
  }
  co_return service_unavailable(std::chrono::seconds(5));
}

// The body's one string member, and the caller's credentials: an answer
// when either cannot be used.
std::optional<ApiResponse> read_request(ApiRequest& request, const char* member,
                                        std::optional<std::string>& value,
                                        BearerCredentials& credentials) {
  std::string problem;
  auto body = parse_json_object(request.body, problem);
  if (!body) return bad_request(problem);
  value = take_string(*body, member, problem);
  if (!value) return bad_request(problem);
  if (!is_valid_login_password(*value))
    return bad_request(std::string(member) + ": must be 1 to 255 characters");
  return read_credentials(request, credentials);
}

// One of auth/second_factor/totp_enrollment's flows: the caller's token, the proof (the
// password or a code, wiped), where the request came from.
using FactorFlow = boost::asio::awaitable<FactorOutcome> (*)(AuthContext&, const std::string&,
                                                             std::string&, const EventSource&);

// Every route's shape: the body's `member` and the credentials, the flow,
// then its refusal, or what `answer` makes of its success.
boost::asio::awaitable<ApiResponse> run_flow(ApiContext& ctx, ApiRequest& request,
                                             const char* member, FactorFlow flow,
                                             ApiResponse (*answer)(FactorOutcome&)) {
  std::optional<std::string> proof;
  WipeOnExit wipe_proof(proof);
  BearerCredentials credentials;
  WipeOnExit wipe_token(credentials.token);
  if (auto refused = read_request(request, member, proof, credentials)) co_return *refused;
  const EventSource source = event_source(ctx, request, std::string(kActorSelf));
  FactorOutcome outcome = co_await flow(ctx.auth, credentials.token, *proof, source);
  if (outcome.kind != FactorOutcome::Kind::ok) {
    ApiResponse refused = co_await refusal(outcome);
    co_return refused;
  }
  co_return answer(outcome);
}

ApiResponse enrolment_response(FactorOutcome& outcome) {
  WipeOnExit wipe_secret(outcome.secret_base32);
  WipeOnExit wipe_uri(outcome.otpauth_uri);
  std::string svg = qr_svg(outcome.otpauth_uri);
  WipeOnExit wipe_svg(svg);  // the QR code holds the secret too
  return secret_response(
      {{"secret", outcome.secret_base32}, {"otpauthUri", outcome.otpauth_uri}, {"qrSvg", svg}});
}

ApiResponse removed_response(FactorOutcome&) { return no_content(); }

}  // namespace

boost::asio::awaitable<ApiResponse> handle_mfa_enroll(ApiContext& ctx, ApiRequest& request) {
  ApiResponse answered =
      co_await run_flow(ctx, request, "password", &enroll_totp, &enrolment_response);
  co_return answered;
}

boost::asio::awaitable<ApiResponse> handle_mfa_confirm(ApiContext& ctx, ApiRequest& request) {
  ApiResponse answered =
      co_await run_flow(ctx, request, "code", &confirm_totp, &recovery_codes_response);
  co_return answered;
}

boost::asio::awaitable<ApiResponse> handle_mfa_remove(ApiContext& ctx, ApiRequest& request) {
  ApiResponse answered = co_await run_flow(ctx, request, "code", &remove_totp, &removed_response);
  co_return answered;
}

boost::asio::awaitable<ApiResponse> handle_mfa_recovery_codes(ApiContext& ctx,
                                                              ApiRequest& request) {
  ApiResponse answered =
      co_await run_flow(ctx, request, "code", &renew_recovery_codes, &recovery_codes_response);
  co_return answered;
}

}  // namespace authd
