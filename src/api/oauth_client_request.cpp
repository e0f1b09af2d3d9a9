#include "api/oauth_client_request.hpp"

#include "api/oauth_client_credentials.hpp"
#include "api/oauth_errors.hpp"
#include "auth/oidc/client_auth.hpp"
#include "core/wipe.hpp"

namespace authd {

boost::asio::awaitable<ClientFormRequest> authenticated_client_form(ApiContext& ctx,
                                                                    const ApiRequest& request) {
  ClientFormRequest out;
  if (!is_form_content_type(request.content_types)) {
    out.refusal =
        oauth_error(400, "invalid_request", "the body must be application/x-www-form-urlencoded");
    co_return out;
  }
  std::optional<FormParameters> form = parse_form(request.body);
  if (!form) {
    out.refusal = oauth_error(400, "invalid_request", "the body is not well-formed");
    co_return out;
  }
  if (!form->repeated.empty()) {
    out.refusal =
        oauth_error(400, "invalid_request", "parameter sent twice: " + form->repeated.front());
    co_return out;
  }
  out.form = std::move(*form);
  std::string problem;
  std::optional<PresentedClient> presented = presented_client(request, out.form, problem);
  if (!presented) {
    out.refusal = oauth_error(400, "invalid_request", problem);
    co_return out;
  }
  EventSource source = event_source(ctx, request, std::string(kActorSelf));
  ClientAuthOutcome client = co_await authenticate_client(ctx.auth, *presented, source);
  if (presented->secret) wipe(*presented->secret);
  switch (client.status) {
    case ClientAuthOutcome::Status::ok:
      out.client = std::move(client.client);
      break;
    case ClientAuthOutcome::Status::invalid_client:
      out.refusal = invalid_client(presented->method == PresentedClient::Method::basic);
      break;
    case ClientAuthOutcome::Status::throttled:
      out.refusal = oauth_too_many(client.retry_after);
      break;
    case ClientAuthOutcome::Status::unavailable:
      out.refusal = oauth_unavailable(std::chrono::seconds(1));
      break;
  }
  co_return out;
}

}  // namespace authd
