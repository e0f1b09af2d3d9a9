// GET /admin/identities/{id}/tokens (interface.md 18.5): the upstream
// provider's tokens kept on a link, for the operator's back end to call the
// provider as the user. The admin API only, and a `write` key (10.2.7):
// they let whoever holds them act as the user at the provider, which no
// `read` key (a dashboard's) and no user session (an application's) may
// (docs/design/decisions/upstream-identity-providers.md).
#include <nlohmann/json.hpp>

#include "api/admin_access.hpp"
#include "api/errors.hpp"
#include "api/handlers.hpp"
#include "auth/upstream/kept_tokens.hpp"
#include "core/log.hpp"
#include "core/time.hpp"
#include "core/wipe_json.hpp"

namespace authd {

boost::asio::awaitable<ApiResponse> handle_admin_identity_tokens(ApiContext& ctx,
                                                                 ApiRequest& request) {
  std::string actor;
  if (auto denied = co_await admin_access_problem(ctx, request, AdminScope::write, &actor))
    co_return *denied;
  const std::string id = admin_id(request.path_parameter);
  KeptTokensRead read = co_await read_kept_tokens(ctx.auth, id);
  if (read.kind == KeptTokensRead::Kind::unavailable)
    co_return service_unavailable(std::chrono::seconds(5));
  if (read.kind == KeptTokensRead::Kind::not_found) co_return error_response(404);
  // Not an event (14.1.1: reads write none), but who read which link's
  // tokens is in the log; never the tokens.
  log::info("upstream_tokens_read", {{"identityId", id}, {"actor", actor}});
  const UpstreamTokens& t = read.tokens;
  nlohmann::json body = {
      {"tokenType", t.token_type},
      {"accessToken", t.access_token},
      {"expiresAt", t.expires_at ? nlohmann::json(format_rfc3339(*t.expires_at)) : nullptr},
      {"scope", t.scope.empty() ? nlohmann::json(nullptr) : nlohmann::json(t.scope)},
      {"storedAt", format_rfc3339(read.stored_at)}};
  if (!t.refresh_token.empty()) body["refreshToken"] = t.refresh_token;
  if (!t.id_token.empty()) body["idToken"] = t.id_token;
  std::string text = body.dump();
  wipe_strings(body);
  ApiResponse response = json_response(200, std::move(text));
  response.headers.emplace_back("Cache-Control", "no-store");
  response.holds_secret = true;  // wiped once sent
  co_return response;
}

}  // namespace authd
