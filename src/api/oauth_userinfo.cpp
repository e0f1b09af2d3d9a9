// GET and POST /oauth2/userinfo (interface.md 17.8, Core 5.3): the claims
// of the access token's user. The token comes in the Authorization header
// (RFC 6750 2.1) or, on POST, as the form parameter access_token (2.2,
// oidcc-userinfo-post-body); never both.
#include "api/bearer.hpp"
#include "api/form_body.hpp"
#include "api/handlers.hpp"
#include "api/oauth_errors.hpp"
#include "auth/oidc/token_exchange.hpp"

namespace authd {

boost::asio::awaitable<ApiResponse> handle_oauth_userinfo(ApiContext& ctx, ApiRequest& request) {
  BearerCredentials header = parse_bearer(request.authorization);
  if (header.kind == BearerCredentials::Kind::malformed)
    co_return bearer_error(400, "invalid_request");
  std::optional<std::string> token;
  if (header.kind == BearerCredentials::Kind::token) token = std::move(header.token);
  if (request.method == "POST" && is_form_content_type(request.content_types)) {
    std::optional<FormParameters> form = parse_form(request.body);
    if (!form || form->is_repeated("access_token")) co_return bearer_error(400, "invalid_request");
    if (const std::string* in_body = form->find("access_token")) {
      if (token) co_return bearer_error(400, "invalid_request");  // RFC 6750 2: one method only
      token = *in_body;
    }
  }
  if (!token) co_return bearer_error(401, "");
  UserinfoOutcome outcome = co_await userinfo(ctx.auth, *token);
  switch (outcome.kind) {
    case UserinfoOutcome::Kind::ok:
      co_return no_store_json(std::move(outcome.claims));
    case UserinfoOutcome::Kind::invalid_token:
      co_return bearer_error(401, "invalid_token");
    case UserinfoOutcome::Kind::insufficient_scope:
      co_return bearer_error(403, "insufficient_scope");
    case UserinfoOutcome::Kind::unavailable:
      break;
  }
  co_return oauth_unavailable(std::chrono::seconds(1));
}

}  // namespace authd
