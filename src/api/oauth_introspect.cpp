// POST /oauth2/introspect (interface.md 17.11, RFC 7662): the caller
// authenticates as at the token endpoint (17.3.3, throttled and recorded
// alike); a client not registered with `introspection: true` is refused
// (403 unauthorized_client) whatever the token; then 200 with the token's
// state, `Cache-Control: no-store`. A read: it records no event.
#include "api/handlers.hpp"
#include "api/oauth_client_request.hpp"
#include "api/oauth_errors.hpp"
#include "auth/oidc/introspection.hpp"

namespace authd {

boost::asio::awaitable<ApiResponse> handle_oauth_introspect(ApiContext& ctx, ApiRequest& request) {
  ClientFormRequest caller = co_await authenticated_client_form(ctx, request);
  if (caller.refusal) co_return std::move(*caller.refusal);
  if (!may_introspect(*caller.client))
    co_return oauth_error(403, "unauthorized_client",
                          "the client is not registered for introspection");
  const std::string* token = caller.form.find("token");
  if (token == nullptr) co_return oauth_error(400, "invalid_request", "token is missing");
  IntrospectionOutcome outcome = co_await introspect(ctx.auth, *caller.client, *token);
  switch (outcome.kind) {
    case IntrospectionOutcome::Kind::ok:
      co_return no_store_json(outcome.answer.dump());
    case IntrospectionOutcome::Kind::unavailable:
      break;
  }
  co_return oauth_unavailable(std::chrono::seconds(1));
}

}  // namespace authd
