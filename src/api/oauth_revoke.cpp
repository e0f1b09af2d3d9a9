// POST /oauth2/revoke (interface.md 17.11, RFC 7009): the client
// authenticates as at the token endpoint, then ends one of its tokens.
// 200 with an empty body whether or not there was anything to end; 400
// unauthorized_client for another client's live token. Errors take RFC
// 6749 5.2's shape; every answer carries Cache-Control: no-store.
#include "api/handlers.hpp"
#include "api/oauth_client_request.hpp"
#include "api/oauth_errors.hpp"
#include "auth/oidc/revocation.hpp"
#include "core/wipe.hpp"

namespace authd {

boost::asio::awaitable<ApiResponse> handle_oauth_revoke(ApiContext& ctx, ApiRequest& request) {
  ClientFormRequest asked = co_await authenticated_client_form(ctx, request);
  if (asked.refusal) co_return std::move(*asked.refusal);
  auto token = asked.form.values.find("token");
  if (token == asked.form.values.end())
    co_return oauth_error(400, "invalid_request", "token is missing");
  EventSource source = event_source(ctx, request, std::string(kActorSelf));
  RevocationOutcome outcome = co_await revoke_token(ctx.auth, *asked.client, token->second, source);
  wipe(token->second);
  switch (outcome.kind) {
    case RevocationOutcome::Kind::ok:
      break;
    case RevocationOutcome::Kind::unauthorized_client:
      co_return oauth_error(400, "unauthorized_client", "the token was not issued to this client");
    case RevocationOutcome::Kind::unavailable:
      co_return oauth_unavailable(std::chrono::seconds(1));
  }
  ApiResponse response;
  response.content_type = {};
  response.headers.emplace_back("Cache-Control", "no-store");
  response.headers.emplace_back("Pragma", "no-cache");
  co_return response;
}

}  // namespace authd
