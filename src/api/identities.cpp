// The links of upstream identities (interface.md 18.4): the caller's own,
// listed and removed with the session's token (the Authorization header,
// or the cookie of 13.5); an account's, listed and removed by an operator
// on the management listener (admin API, 10.2).
#include <nlohmann/json.hpp>

#include "api/admin_access.hpp"
#include "api/credentials.hpp"
#include "api/errors.hpp"
#include "api/handlers.hpp"
#include "auth/upstream/identities.hpp"
#include "core/time.hpp"
#include "core/wipe.hpp"

namespace authd {
namespace {

// An Identity (18.4.1): never the upstream's subject, which names a person
// at the provider and is of no use to the client.
nlohmann::json identity_json(const IdentityRecord& link) {
  return {{"id", link.id},
          {"provider", link.provider},
          {"email", link.email.empty() ? nlohmann::json(nullptr) : nlohmann::json(link.email)},
          {"createdAt", format_rfc3339(link.created_at)},
          {"lastUsedAt", link.last_used_at ? nlohmann::json(format_rfc3339(*link.last_used_at))
                                           : nlohmann::json(nullptr)}};
}

ApiResponse list_response(const IdentityList& list) {
  switch (list.kind) {
    case IdentityList::Kind::ok: {
      nlohmann::json items = nlohmann::json::array();
      for (const IdentityRecord& link : list.identities) items.push_back(identity_json(link));
      return json_response(200, nlohmann::json{{"identities", items}}.dump());
    }
    case IdentityList::Kind::invalid_token:
      return invalid_token();
    case IdentityList::Kind::not_found:
      return error_response(404);
    case IdentityList::Kind::unavailable:
      break;
  }
  return service_unavailable(std::chrono::seconds(5));
}

ApiResponse removal_response(const IdentityRemoval& removal) {
  switch (removal.kind) {
    case IdentityRemoval::Kind::ok:
      return no_content();
    case IdentityRemoval::Kind::not_found:
      return error_response(404);
    case IdentityRemoval::Kind::last_way:
      return error_response(409);
    case IdentityRemoval::Kind::invalid_token:
      return invalid_token();
    case IdentityRemoval::Kind::unavailable:
      break;
  }
  return service_unavailable(std::chrono::seconds(5));
}

}  // namespace

boost::asio::awaitable<ApiResponse> handle_list_identities(ApiContext& ctx, ApiRequest& request) {
  BearerCredentials credentials;
  WipeOnExit wipe_token(credentials.token);
  if (auto problem = read_credentials(request, credentials)) co_return std::move(*problem);
  IdentityList list = co_await list_own_identities(ctx.auth, credentials.token);
  co_return list_response(list);
}

boost::asio::awaitable<ApiResponse> handle_unlink_identity(ApiContext& ctx, ApiRequest& request) {
  BearerCredentials credentials;
  WipeOnExit wipe_token(credentials.token);
  if (auto problem = read_credentials(request, credentials)) co_return std::move(*problem);
  const EventSource source = event_source(ctx, request, std::string(kActorSelf));
  IdentityRemoval removal = co_await unlink_own_identity(ctx.auth, credentials.token,
                                                         admin_id(request.path_parameter), source);
  co_return removal_response(removal);
}

boost::asio::awaitable<ApiResponse> handle_admin_list_identities(ApiContext& ctx,
                                                                 ApiRequest& request) {
  if (auto denied = co_await admin_access_problem(ctx, request, AdminScope::read))
    co_return *denied;
  IdentityList list = co_await list_user_identities(ctx.auth, admin_id(request.path_parameter));
  co_return list_response(list);
}

boost::asio::awaitable<ApiResponse> handle_admin_unlink_identity(ApiContext& ctx,
                                                                 ApiRequest& request) {
  std::string admin;
  if (auto denied = co_await admin_access_problem(ctx, request, AdminScope::write, &admin))
    co_return *denied;
  const EventSource source = event_source(ctx, request, admin_actor(admin));
  IdentityRemoval removal =
      co_await admin_unlink_identity(ctx.auth, admin_id(request.path_parameter), source);
  co_return removal_response(removal);
}

}  // namespace authd
