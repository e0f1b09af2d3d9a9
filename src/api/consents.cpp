// GET /consents and DELETE /consents/{clientId} (interface.md 17.5): the
// caller's consents to third-party clients, read and withdrawn with the
// session's token (the Authorization header, or the cookie of 13.5).
#include <nlohmann/json.hpp>

#include "api/credentials.hpp"
#include "api/errors.hpp"
#include "api/handlers.hpp"
#include "auth/oidc/consents.hpp"
#include "core/time.hpp"

namespace authd {

boost::asio::awaitable<ApiResponse> handle_list_consents(ApiContext& ctx, ApiRequest& request) {
  BearerCredentials credentials;
  if (auto problem = read_credentials(request, credentials)) co_return std::move(*problem);
  OwnConsents own = co_await list_own_consents(ctx.auth, credentials.token);
  if (own.kind == OwnConsents::Kind::invalid_token) co_return invalid_token();
  if (own.kind == OwnConsents::Kind::unavailable)
    co_return service_unavailable(std::chrono::seconds(5));
  nlohmann::json list = nlohmann::json::array();
  for (const ConsentListing& listing : own.consents)
    list.push_back({{"clientId", listing.consent.client_id},
                    {"clientName", listing.client_name},
                    {"scopes", listing.consent.scopes},
                    {"grantedAt", format_rfc3339(listing.consent.granted_at)},
                    {"updatedAt", format_rfc3339(listing.consent.updated_at)}});
  co_return json_response(200, nlohmann::json{{"consents", list}}.dump());
}

boost::asio::awaitable<ApiResponse> handle_withdraw_consent(ApiContext& ctx, ApiRequest& request) {
  BearerCredentials credentials;
  if (auto problem = read_credentials(request, credentials)) co_return std::move(*problem);
  ConsentWithdrawal withdrawal =
      co_await withdraw_consent(ctx.auth, credentials.token, request.path_parameter,
                                event_source(ctx, request, std::string(kActorSelf)));
  switch (withdrawal.kind) {
    case ConsentWithdrawal::Kind::ok:
      co_return no_content();
    case ConsentWithdrawal::Kind::not_found:
      co_return error_response(404);
    case ConsentWithdrawal::Kind::invalid_token:
      co_return invalid_token();
    case ConsentWithdrawal::Kind::unavailable:
      break;
  }
  co_return service_unavailable(std::chrono::seconds(5));
}

}  // namespace authd
