// The passkey routes (interface.md 16): POST /webauthn/register/options
// {password} and POST /webauthn/register {credential, name?} with the
// caller's bearer token; POST /webauthn/login/options and POST
// /webauthn/login {credential} without; GET /webauthn/credentials and POST
// /webauthn/credentials/{id}/remove {password} with the token. Checks in
// the order of 12.1: the body (400), the credentials (400/401), then the
// flow's own answers.
#include "api/handlers.hpp"

#include <nlohmann/json.hpp>

#include "api/credentials.hpp"
#include "api/errors.hpp"
#include "api/json_body.hpp"
#include "api/second_factor_body.hpp"
#include "api/user_json.hpp"
#include "auth/credentials/password_rules.hpp"
#include "auth/second_factor/passkeys.hpp"
#include "core/time.hpp"
#include "core/utf8.hpp"
#include "core/wipe.hpp"

namespace authd {
namespace {

constexpr std::size_t kLongestPasskeyName = 64;

// A passkey as the list and the registration show it (16.2.2).
nlohmann::json passkey_json(const PasskeyRecord& passkey) {
  return {
      {"id", passkey.id},
      {"name", passkey.name},
      {"createdAt", format_rfc3339(passkey.created_at)},
      {"lastUsedAt", passkey.last_used_at ? nlohmann::json(format_rfc3339(*passkey.last_used_at))
                                          : nlohmann::json(nullptr)},
      {"backedUp", passkey.backed_up}};
}

// The answers every flow shares; nothing for kinds the route answers itself.
boost::asio::awaitable<ApiResponse> refusal(const PasskeyOutcome& outcome) {
  switch (outcome.kind) {
    case PasskeyOutcome::Kind::invalid_token:
      co_return invalid_token();
    case PasskeyOutcome::Kind::throttled:
      co_return too_many_requests(outcome.retry_after);
    case PasskeyOutcome::Kind::wrong_proof:
    case PasskeyOutcome::Kind::disabled:
      co_return error_response(403);
    case PasskeyOutcome::Kind::second_factor_required: {  // 16.4.3
      ApiResponse response = error_response(403);
      response.headers.emplace_back("Authd-Second-Factor", outcome.second_factors);
      co_return response;
    }
    case PasskeyOutcome::Kind::not_found:
      co_return error_response(404);
    case PasskeyOutcome::Kind::conflict:
      co_return error_response(409);
    case PasskeyOutcome::Kind::refused:  // 16.2.2: which check; 16.3.2 answers 401 itself
      co_return bad_request(std::string("credential: failed the ") +
                            webauthn::check_name(outcome.failed.value_or(webauthn::Check::shape)) +
                            " check");
    case PasskeyOutcome::Kind::busy:
      co_return hashing_busy();
    case PasskeyOutcome::Kind::ok:
    case PasskeyOutcome::Kind::unavailable:
      break;
  }
  co_return service_unavailable(std::chrono::seconds(5));
}

ApiResponse options_response(const PasskeyOutcome& outcome) {
  return json_response(200, dump_json({{"publicKey", outcome.options}}));
}

// What a route proved by the password reads (16.4.3): {"password"}, the
// second factor's members, the caller's credentials; wiped when done.
struct PasswordRequest {
  std::optional<std::string> password;
  SecondFactorInput second;
  BearerCredentials credentials;
  WipeOnExit wipe_password{password};
  WipeOnExit wipe_otp{second.otp};
  WipeOnExit wipe_recovery{second.recovery_code};
  WipeOnExit wipe_token{credentials.token};
};

// Fills `read`; an answer when the body or the credentials cannot be used.
std::optional<ApiResponse> read_password_request(ApiRequest& request, PasswordRequest& read) {
  std::string problem;
  auto body = parse_json_object(request.body, problem);
  if (!body) return bad_request(problem);
  read.password = take_string(*body, "password", problem);
  take_second_factor(*body, read.second, problem);
  if (!read.password || !problem.empty()) return bad_request(problem);
  if (!is_valid_login_password(*read.password))
    return bad_request("password: must be 1 to 255 characters");
  return read_credentials(request, read.credentials);
}

}  // namespace

boost::asio::awaitable<ApiResponse> handle_webauthn_register_options(ApiContext& ctx,
                                                                     ApiRequest& request) {
  PasswordRequest read;
  if (auto refused = read_password_request(request, read)) co_return *refused;
  const EventSource source = event_source(ctx, request, std::string(kActorSelf));
  PasskeyOutcome outcome = co_await passkey_registration_options(
      ctx.auth, read.credentials.token, *read.password, read.second, source);
  if (outcome.kind != PasskeyOutcome::Kind::ok) {
    ApiResponse refused = co_await refusal(outcome);
    co_return refused;
  }
  co_return options_response(outcome);
}

boost::asio::awaitable<ApiResponse> handle_webauthn_register(ApiContext& ctx, ApiRequest& request) {
  std::string problem;
  auto body = parse_json_object(request.body, problem);
  if (!body) co_return bad_request(problem);
  std::optional<nlohmann::json> credential = take_object(*body, "credential", true, problem);
  std::optional<std::string> name = take_optional_string(*body, "name", problem);
  if (!credential || !problem.empty()) co_return bad_request(problem);
  std::optional<webauthn::RegistrationResponse> response =
      webauthn::parse_registration_response(*credential, problem);
  if (!response) co_return bad_request(problem);
  if (name && (name->empty() || count_code_points(*name) > kLongestPasskeyName))
    co_return bad_request("name: must be 1 to 64 characters");
  BearerCredentials credentials;
  WipeOnExit wipe_token(credentials.token);
  if (auto refused = read_credentials(request, credentials)) co_return *refused;
  const EventSource source = event_source(ctx, request, std::string(kActorSelf));
  const std::string chosen_name = name.value_or("Passkey");
  PasskeyOutcome outcome =
      co_await register_passkey(ctx.auth, credentials.token, *response, chosen_name, source);
  if (outcome.kind != PasskeyOutcome::Kind::ok) {
    ApiResponse refused = co_await refusal(outcome);
    co_return refused;
  }
  nlohmann::json answer = {{"passkey", passkey_json(outcome.passkey)}};
  if (!outcome.recovery_codes.empty()) answer["recoveryCodes"] = outcome.recovery_codes;
  for (std::string& code : outcome.recovery_codes) wipe(code);
  ApiResponse response201 = json_response(201, dump_json(answer));
  response201.holds_secret = answer.contains("recoveryCodes");  // wiped once sent
  co_return response201;
}

boost::asio::awaitable<ApiResponse> handle_webauthn_login_options(ApiContext& ctx,
                                                                  ApiRequest& request) {
  PasskeyOutcome outcome = co_await passkey_sign_in_options(ctx.auth, request.client_address);
  if (outcome.kind != PasskeyOutcome::Kind::ok) {
    ApiResponse refused = co_await refusal(outcome);
    co_return refused;
  }
  co_return options_response(outcome);
}

boost::asio::awaitable<ApiResponse> handle_webauthn_login(ApiContext& ctx, ApiRequest& request) {
  std::string problem;
  auto body = parse_json_object(request.body, problem);
  if (!body) co_return bad_request(problem);
  std::optional<nlohmann::json> credential = take_object(*body, "credential", true, problem);
  if (!credential) co_return bad_request(problem);
  std::optional<webauthn::AssertionResponse> response =
      webauthn::parse_assertion_response(*credential, problem);
  if (!response) co_return bad_request(problem);
  const SessionOrigin origin{request.client_address, request.user_agent};
  const EventSource source = event_source(ctx, request, std::string(kActorSelf));
  PasskeyOutcome outcome = co_await sign_in_with_passkey(ctx.auth, *response, origin, source);
  if (outcome.kind == PasskeyOutcome::Kind::ok)
    co_return signed_in_response(request, outcome.user, outcome.token,
                                 ctx.auth.policy.session_lifetime);
  if (outcome.kind == PasskeyOutcome::Kind::refused) co_return error_response(401);
  ApiResponse answered = co_await refusal(outcome);
  co_return answered;
}

boost::asio::awaitable<ApiResponse> handle_webauthn_list(ApiContext& ctx, ApiRequest& request) {
  BearerCredentials credentials;
  WipeOnExit wipe_token(credentials.token);
  if (auto refused = read_credentials(request, credentials)) co_return *refused;
  PasskeyOutcome outcome = co_await list_passkeys(ctx.auth, credentials.token);
  if (outcome.kind != PasskeyOutcome::Kind::ok) {
    ApiResponse refused = co_await refusal(outcome);
    co_return refused;
  }
  nlohmann::json list = nlohmann::json::array();
  for (const PasskeyRecord& passkey : outcome.passkeys) list.push_back(passkey_json(passkey));
  co_return json_response(200, dump_json({{"passkeys", std::move(list)}}));
}

boost::asio::awaitable<ApiResponse> handle_webauthn_remove(ApiContext& ctx, ApiRequest& request) {
  PasswordRequest read;
  if (auto refused = read_password_request(request, read)) co_return *refused;
  const EventSource source = event_source(ctx, request, std::string(kActorSelf));
  const std::string passkey_id(request.path_parameter);
  PasskeyOutcome outcome = co_await remove_passkey(ctx.auth, read.credentials.token, passkey_id,
                                                   *read.password, read.second, source);
  if (outcome.kind != PasskeyOutcome::Kind::ok) {
    ApiResponse refused = co_await refusal(outcome);
    co_return refused;
  }
  co_return no_content();
}

}  // namespace authd
