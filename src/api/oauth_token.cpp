// POST /oauth2/token (interface.md 17.7): the client authenticates, then
// redeems an authorization code (17.6) or a refresh token (17.10), or,
// for itself, asks for a token (client_credentials, 17.7). Errors take
// RFC 6749 5.2's shape; every answer carries Cache-Control: no-store.
#include <nlohmann/json.hpp>

#include "api/form_body.hpp"
#include "api/handlers.hpp"
#include "api/oauth_client_credentials.hpp"
#include "api/oauth_errors.hpp"
#include "auth/oidc/access_tokens.hpp"
#include "auth/oidc/client_auth.hpp"
#include "auth/oidc/client_credentials_grant.hpp"
#include "auth/oidc/refresh_grant.hpp"
#include "auth/oidc/token_exchange.hpp"
#include "core/wipe.hpp"

namespace authd {
namespace {

ApiResponse tokens_response(TokenOutcome& outcome) {
  nlohmann::json body = {{"access_token", outcome.access_token},
                         {"token_type", "Bearer"},
                         {"expires_in", outcome.expires_in},
                         {"scope", outcome.scope}};
  if (!outcome.id_token.empty()) body["id_token"] = outcome.id_token;
  if (!outcome.refresh_token.empty()) body["refresh_token"] = outcome.refresh_token;
  wipe(outcome.access_token);
  wipe(outcome.refresh_token);
  ApiResponse response = no_store_json(body.dump());
  wipe(body["access_token"].get_ref<std::string&>());
  if (body.contains("refresh_token")) wipe(body["refresh_token"].get_ref<std::string&>());
  response.holds_secret = true;
  return response;
}

// The grant's own parameters, present: otherwise invalid_request.
const char* missing_parameter(const FormParameters& form) {
  for (const char* name : {"code", "redirect_uri", "code_verifier"})
    if (form.find(name) == nullptr) return name;
  return nullptr;
}

// grant_type=client_credentials (17.7): no ID token, no refresh token, and
// `scope` only when something was granted.
boost::asio::awaitable<ApiResponse> client_credentials_answer(ApiContext& ctx,
                                                              const OAuthClientRecord& client,
                                                              const FormParameters& form) {
  using Kind = ClientCredentialsOutcome::Kind;
  ClientCredentialsRequest request;
  if (const std::string* scope = form.find("scope")) request.scope = *scope;
  if (const std::string* resource = form.find("resource")) request.resource = *resource;
  ClientCredentialsOutcome outcome = co_await issue_client_token(ctx.auth, client, request);
  switch (outcome.kind) {
    case Kind::ok:
      break;
    case Kind::unauthorized_client:
      co_return oauth_error(400, "unauthorized_client", outcome.description);
    case Kind::invalid_scope:
      co_return oauth_error(400, "invalid_scope", outcome.description);
    case Kind::invalid_target:
      co_return oauth_error(400, "invalid_target", outcome.description);
    case Kind::unavailable:
      co_return oauth_unavailable(std::chrono::seconds(1));
  }
  nlohmann::json body = {{"access_token", outcome.access_token},
                         {"token_type", "Bearer"},
                         {"expires_in", outcome.expires_in}};
  if (!outcome.scope.empty()) body["scope"] = outcome.scope;
  wipe(outcome.access_token);
  ApiResponse response = no_store_json(body.dump());
  wipe(body["access_token"].get_ref<std::string&>());
  response.holds_secret = true;
  co_return response;
}

ApiResponse token_answer(TokenOutcome& outcome) {
  switch (outcome.kind) {
    case TokenOutcome::Kind::ok:
      return tokens_response(outcome);
    case TokenOutcome::Kind::invalid_grant:
      return oauth_error(400, "invalid_grant", outcome.description);
    case TokenOutcome::Kind::invalid_scope:
      return oauth_error(400, "invalid_scope", outcome.description);
    case TokenOutcome::Kind::invalid_target:
      return oauth_error(400, "invalid_target", outcome.description);
    case TokenOutcome::Kind::unavailable:
      break;
  }
  return oauth_unavailable(std::chrono::seconds(1));
}

// grant_type=refresh_token (17.10): rotation, and a narrower scope on ask.
boost::asio::awaitable<ApiResponse> refresh_answer(ApiContext& ctx, const OAuthClientRecord& client,
                                                   const FormParameters& form,
                                                   const EventSource& source) {
  const std::string* token = form.find("refresh_token");
  if (token == nullptr) co_return oauth_error(400, "invalid_request", "refresh_token is missing");
  RefreshRequest refresh{*token, std::nullopt};
  if (const std::string* scope = form.find("scope")) refresh.scope = *scope;
  TokenOutcome outcome = co_await redeem_refresh_token(ctx.auth, client, refresh, source);
  wipe(refresh.refresh_token);
  co_return token_answer(outcome);
}

}  // namespace

boost::asio::awaitable<ApiResponse> handle_oauth_token(ApiContext& ctx, ApiRequest& request) {
  if (!is_form_content_type(request.content_types))
    co_return oauth_error(400, "invalid_request",
                          "the body must be application/x-www-form-urlencoded");
  std::optional<FormParameters> form = parse_form(request.body);
  if (!form) co_return oauth_error(400, "invalid_request", "the body is not well-formed");
  // RFC 8707 2: several resources are allowed; authd takes one (17.9).
  if (form->is_repeated("resource"))
    co_return oauth_error(400, "invalid_target", "only one resource is accepted");
  if (!form->repeated.empty())
    co_return oauth_error(400, "invalid_request",
                          "parameter sent twice: " + form->repeated.front());

  std::string problem;
  std::optional<PresentedClient> presented = presented_client(request, *form, problem);
  if (!presented) co_return oauth_error(400, "invalid_request", problem);
  EventSource source = event_source(ctx, request, std::string(kActorSelf));
  ClientAuthOutcome client = co_await authenticate_client(ctx.auth, *presented, source);
  if (presented->secret) wipe(*presented->secret);
  switch (client.status) {
    case ClientAuthOutcome::Status::ok:
      break;
    case ClientAuthOutcome::Status::invalid_client:
      co_return invalid_client(presented->method == PresentedClient::Method::basic);
    case ClientAuthOutcome::Status::throttled:
      co_return oauth_too_many(client.retry_after);
    case ClientAuthOutcome::Status::unavailable:
      co_return oauth_unavailable(std::chrono::seconds(1));
  }

  const std::string* grant_type = form->find("grant_type");
  if (grant_type == nullptr) co_return oauth_error(400, "invalid_request", "grant_type is missing");
  if (*grant_type != "authorization_code" && *grant_type != "refresh_token" &&
      *grant_type != "client_credentials")
    co_return oauth_error(400, "unsupported_grant_type",
                          "served: authorization_code, refresh_token, client_credentials");
  if (std::find(client.client->grant_types.begin(), client.client->grant_types.end(),
                *grant_type) == client.client->grant_types.end())
    co_return oauth_error(400, "unauthorized_client", "the client may not use this grant");
  if (*grant_type == "client_credentials")
    co_return co_await client_credentials_answer(ctx, *client.client, *form);
  if (*grant_type == "refresh_token")
    co_return co_await refresh_answer(ctx, *client.client, *form, source);
  if (const char* missing = missing_parameter(*form))
    co_return oauth_error(400, "invalid_request", std::string(missing) + " is missing");

  const std::string* resource = form->find("resource");
  if (resource != nullptr && !is_resource_indicator(*resource))
    co_return oauth_error(400, "invalid_target",
                          "resource must be an absolute URI without a fragment");
  CodeExchange exchange{*form->find("code"), *form->find("redirect_uri"),
                        *form->find("code_verifier"), resource != nullptr ? *resource : ""};
  TokenOutcome outcome = co_await exchange_code(ctx.auth, *client.client, exchange, source);
  wipe(exchange.code);
  co_return token_answer(outcome);
}

}  // namespace authd
