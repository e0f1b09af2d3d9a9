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
#include "auth/password_rules.hpp"
#include "auth/totp_enrollment.hpp"
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
    case FactorOutcome::Kind::busy: {
      ApiResponse busy = co_await hashing_busy();
      co_return busy;
    }
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

// POST /mfa/totp/remove and /mfa/recovery-codes: a TOTP code or a
// recovery code, then the factor removed (204) or a new set of codes (200).
boost::asio::awaitable<ApiResponse> prove_and(ApiContext& ctx, ApiRequest& request, bool renew) {
  std::optional<std::string> code;
  WipeOnExit wipe_code(code);
  BearerCredentials credentials;
  WipeOnExit wipe_token(credentials.token);
  if (auto answer = read_request(request, "code", code, credentials)) co_return *answer;
  FactorOutcome outcome =
      co_await prove_totp_and(ctx.auth, credentials.token, *code, renew, request.client_address);
  if (outcome.kind != FactorOutcome::Kind::ok) co_return co_await refusal(outcome);
  if (!renew) co_return no_content();
  co_return recovery_codes_response(outcome);
}

}  // namespace

boost::asio::awaitable<ApiResponse> handle_mfa_enroll(ApiContext& ctx, ApiRequest& request) {
  std::optional<std::string> password;
  WipeOnExit wipe_password(password);
  BearerCredentials credentials;
  WipeOnExit wipe_token(credentials.token);
  if (auto answer = read_request(request, "password", password, credentials)) co_return *answer;
  FactorOutcome outcome =
      co_await enroll_totp(ctx.auth, credentials.token, *password, request.client_address);
  if (outcome.kind != FactorOutcome::Kind::ok) co_return co_await refusal(outcome);
  WipeOnExit wipe_secret(outcome.secret_base32);
  WipeOnExit wipe_uri(outcome.otpauth_uri);
  std::string svg = qr_svg(outcome.otpauth_uri);
  WipeOnExit wipe_svg(svg);  // the QR code holds the secret too
  co_return secret_response(
      {{"secret", outcome.secret_base32}, {"otpauthUri", outcome.otpauth_uri}, {"qrSvg", svg}});
}

boost::asio::awaitable<ApiResponse> handle_mfa_confirm(ApiContext& ctx, ApiRequest& request) {
  std::optional<std::string> code;
  WipeOnExit wipe_code(code);
  BearerCredentials credentials;
  WipeOnExit wipe_token(credentials.token);
  if (auto answer = read_request(request, "code", code, credentials)) co_return *answer;
  FactorOutcome outcome =
      co_await confirm_totp(ctx.auth, credentials.token, *code, request.client_address);
  if (outcome.kind != FactorOutcome::Kind::ok) co_return co_await refusal(outcome);
  co_return recovery_codes_response(outcome);
}

boost::asio::awaitable<ApiResponse> handle_mfa_remove(ApiContext& ctx, ApiRequest& request) {
  co_return co_await prove_and(ctx, request, false);
}

boost::asio::awaitable<ApiResponse> handle_mfa_recovery_codes(ApiContext& ctx,
                                                              ApiRequest& request) {
  co_return co_await prove_and(ctx, request, true);
}

}  // namespace authd
