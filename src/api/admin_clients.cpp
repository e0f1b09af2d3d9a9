// The admin API's OAuth client routes (interface.md 17.3), on the
// management listener whether or not --oidc is on (registering clients
// before the provider is turned on is the normal order): POST and GET
// /admin/clients, GET, PATCH and DELETE /admin/clients/{id}, POST
// /admin/clients/{id}/secret. The order of 1.10: the body (400), the admin
// key (400/401), its scope (403), then the operation's outcome.
#include "api/admin_access.hpp"
#include "api/admin_client_body.hpp"
#include "api/errors.hpp"
#include "api/handlers.hpp"
#include "core/wipe.hpp"

namespace authd {
namespace {

// The body of a POST or PATCH, or the 400 it deserves.
std::optional<ClientFields> read_body(const ApiRequest& request,
                                      std::optional<ApiResponse>& refusal) {
  std::string problem;
  std::optional<RequestJson> object = parse_json_object(request.body, problem);
  std::optional<ClientFields> fields;
  if (object) fields = read_client_body(*object, problem);
  if (!fields) refusal = bad_request(problem);
  return fields;
}

// The answer to an operation on one client; its secret, when it has one
// to show (a creation's, a rotation's), is in the body once and the
// response is wiped once sent.
ApiResponse outcome_response(ClientOutcome& outcome, int success_status) {
  switch (outcome.kind) {
    case ClientOutcome::Kind::ok:
      break;
    case ClientOutcome::Kind::invalid:
      return bad_request(outcome.problem);
    case ClientOutcome::Kind::not_found:
      return error_response(404);
    case ClientOutcome::Kind::unavailable:
      return service_unavailable(std::chrono::seconds(5));
  }
  nlohmann::ordered_json body = client_json(outcome.client);
  const bool holds_secret = !outcome.secret.empty();
  if (holds_secret) body["clientSecret"] = outcome.secret;
  ApiResponse response = json_response(success_status, body.dump());
  if (holds_secret) {
    response.holds_secret = true;
    wipe(body["clientSecret"].get_ref<std::string&>());
    wipe(outcome.secret);
  }
  if (success_status == 201)
    response.headers.emplace_back("Location", "/admin/clients/" + outcome.client.id);
  return response;
}

// A client id as authd writes it (UUIDs are case-insensitive on input).
std::string client_id(const ApiRequest& request) { return admin_id(request.path_parameter); }

}  // namespace

boost::asio::awaitable<ApiResponse> handle_admin_create_client(ApiContext& ctx,
                                                               ApiRequest& request) {
  std::optional<ApiResponse> refusal;
  std::optional<ClientFields> fields = read_body(request, refusal);
  if (!fields) co_return *refusal;
  std::string admin;
  if (auto denied = co_await admin_access_problem(ctx, request, AdminScope::write, &admin))
    co_return *denied;
  const EventSource source = event_source(ctx, request, admin);
  ClientOutcome outcome = co_await create_client(ctx.auth, *fields, source);
  co_return outcome_response(outcome, 201);
}

boost::asio::awaitable<ApiResponse> handle_admin_list_clients(ApiContext& ctx,
                                                              ApiRequest& request) {
  if (auto denied = co_await admin_access_problem(ctx, request, AdminScope::read))
    co_return *denied;
  ClientList list = co_await list_clients(ctx.auth);
  if (!list.ok) co_return service_unavailable(std::chrono::seconds(5));
  nlohmann::ordered_json clients = nlohmann::ordered_json::array();
  for (const OAuthClientRecord& client : list.clients) clients.push_back(client_json(client));
  co_return json_response(200, nlohmann::ordered_json{{"clients", clients}}.dump());
}

boost::asio::awaitable<ApiResponse> handle_admin_get_client(ApiContext& ctx, ApiRequest& request) {
  if (auto denied = co_await admin_access_problem(ctx, request, AdminScope::read))
    co_return *denied;
  ClientOutcome outcome = co_await read_client(ctx.auth, client_id(request));
  co_return outcome_response(outcome, 200);
}

boost::asio::awaitable<ApiResponse> handle_admin_patch_client(ApiContext& ctx,
                                                              ApiRequest& request) {
  std::optional<ApiResponse> refusal;
  std::optional<ClientFields> fields = read_body(request, refusal);
  if (!fields) co_return *refusal;
  std::string admin;
  if (auto denied = co_await admin_access_problem(ctx, request, AdminScope::write, &admin))
    co_return *denied;
  const EventSource source = event_source(ctx, request, admin);
  ClientOutcome outcome = co_await update_client(ctx.auth, client_id(request), *fields, source);
  co_return outcome_response(outcome, 200);
}

boost::asio::awaitable<ApiResponse> handle_admin_delete_client(ApiContext& ctx,
                                                               ApiRequest& request) {
  std::string admin;
  if (auto denied = co_await admin_access_problem(ctx, request, AdminScope::write, &admin))
    co_return *denied;
  const EventSource source = event_source(ctx, request, admin);
  ClientOutcome outcome = co_await delete_client(ctx.auth, client_id(request), source);
  if (outcome.kind == ClientOutcome::Kind::ok) co_return no_content();
  co_return outcome_response(outcome, 200);
}

boost::asio::awaitable<ApiResponse> handle_admin_rotate_client_secret(ApiContext& ctx,
                                                                      ApiRequest& request) {
  std::string admin;
  if (auto denied = co_await admin_access_problem(ctx, request, AdminScope::write, &admin))
    co_return *denied;
  const EventSource source = event_source(ctx, request, admin);
  ClientOutcome outcome = co_await rotate_client_secret(ctx.auth, client_id(request), source);
  co_return outcome_response(outcome, 200);
}

}  // namespace authd
