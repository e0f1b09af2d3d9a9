// The admin keys through the admin API (interface.md 10.2.9), as `authd
// admin-key` manages them (10.2.3-10.2.5), for the console (21.1) and any
// client with a write key: GET /admin/keys (read), POST /admin/keys and
// DELETE /admin/keys/{name} (write). A key is shown once, in the answer
// that creates it, which is wiped once sent.
#include "api/admin_access.hpp"
#include "api/errors.hpp"
#include "api/handlers.hpp"
#include "api/json_body.hpp"
#include "core/time.hpp"
#include "core/wipe.hpp"

namespace authd {
namespace {

nlohmann::json admin_key_json(const AdminKeyRecord& key) {
  return {{"name", key.name},
          {"scope", key.scope},
          {"createdAt", format_rfc3339(key.created_at)},
          {"lastUsedAt", key.last_used_at ? nlohmann::json(format_rfc3339(*key.last_used_at))
                                          : nlohmann::json()}};
}

ApiResponse admin_key_failure(const AdminKeyResult& result) {
  switch (result.kind) {
    case AdminKeyResult::Kind::invalid:
      return bad_request(result.message);
    case AdminKeyResult::Kind::exists:
      return error_response(409);
    case AdminKeyResult::Kind::not_found:
      return error_response(404);
    default:
      return service_unavailable(std::chrono::seconds(5));
  }
}

}  // namespace

boost::asio::awaitable<ApiResponse> handle_admin_list_keys(ApiContext& ctx, ApiRequest& request) {
  if (auto denied = co_await admin_access_problem(ctx, request, AdminScope::read))
    co_return *denied;
  AdminKeyResult result = co_await list_admin_keys(ctx.auth);
  if (result.kind != AdminKeyResult::Kind::ok) co_return admin_key_failure(result);
  nlohmann::json keys = nlohmann::json::array();
  for (const AdminKeyRecord& key : result.keys) keys.push_back(admin_key_json(key));
  co_return json_response(200, nlohmann::json{{"keys", keys}}.dump());
}

boost::asio::awaitable<ApiResponse> handle_admin_create_key(ApiContext& ctx, ApiRequest& request) {
  std::string problem;
  auto body = parse_json_object(request.body, problem);
  if (!body) co_return bad_request(problem);
  auto name = take_string(*body, "name", problem);
  auto scope_text = take_string(*body, "scope", problem);
  if (!name || !scope_text || !problem.empty()) co_return bad_request(problem);
  std::optional<AdminScope> scope = parse_admin_scope(*scope_text);
  if (!scope) co_return bad_request("scope: read or write");
  if (!is_valid_admin_key_name(*name))
    co_return bad_request("name: 1 to 64 characters of A-Z a-z 0-9 . _ -");
  std::string actor;
  if (auto denied = co_await admin_access_problem(ctx, request, AdminScope::write, &actor))
    co_return *denied;
  const EventSource source = event_source(ctx, request, actor);
  AdminKeyResult result = co_await create_admin_key(ctx.auth, *name, *scope, source);
  WipeOnExit wipe_key(result.key);
  if (result.kind != AdminKeyResult::Kind::ok) co_return admin_key_failure(result);
  nlohmann::json created = admin_key_json(result.keys.front());
  created["key"] = result.key;
  ApiResponse response = json_response(201, created.dump());
  wipe(created["key"].get_ref<std::string&>());
  response.holds_secret = true;
  co_return response;
}

boost::asio::awaitable<ApiResponse> handle_admin_revoke_key(ApiContext& ctx, ApiRequest& request) {
  std::string actor;
  if (auto denied = co_await admin_access_problem(ctx, request, AdminScope::write, &actor))
    co_return *denied;
  const EventSource source = event_source(ctx, request, actor);
  AdminKeyResult result =
      co_await revoke_admin_key(ctx.auth, std::string(request.path_parameter), source);
  if (result.kind != AdminKeyResult::Kind::ok) co_return admin_key_failure(result);
  co_return no_content();
}

}  // namespace authd
