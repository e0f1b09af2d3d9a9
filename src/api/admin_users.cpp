// The admin API's user routes (interface.md 10.4), on the management
// listener: POST /admin/users, GET /admin/users (by e-mail, or a page),
// GET, PATCH and DELETE /admin/users/{id}, PUT /admin/users/{id}/password.
// Each runs the contract's order (1.10): the body (400), the admin key
// (400/401), its scope (403), then the operation's outcome.
#include "api/handlers.hpp"

#include <charconv>
#include <set>

#include "api/admin_access.hpp"
#include "api/admin_user_body.hpp"
#include "api/errors.hpp"
#include "api/query.hpp"
#include "api/user_json.hpp"
#include "auth/credentials/email.hpp"
#include "core/json_text.hpp"
#include "core/wipe.hpp"
#include "crypto/random.hpp"

namespace authd {
namespace {

// The admin view of `user` with its confirmed second factors (interface.md 10.3).
std::string admin_user_body_with(const UserRecord& user,
                                 const std::map<std::string, AccountFactors>& factors) {
  auto found = factors.find(user.id);
  if (found == factors.end()) return admin_user_body(user, false, false);
  return admin_user_body(user, found->second.totp, found->second.passkeys);
}

constexpr int kDefaultPageSize = 100;
constexpr int kLargestPageSize = 1000;

// The body of a POST, PATCH or PUT, or the 400 it deserves.
std::optional<AdminUserBody> read_body(const ApiRequest& request, AdminBody kind,
                                       std::optional<ApiResponse>& refusal) {
  std::string problem;
  auto object = parse_json_object(request.body, problem);
  std::optional<AdminUserBody> body;
  if (object) body = read_admin_user_body(*object, kind, problem);
  if (!body) refusal = bad_request(problem);
  return body;
}

// Wipes whatever password or hash the body held, on every path out.
struct WipePasswords {
  AdminPassword& password;
  ~WipePasswords() {
    if (password.password) wipe(*password.password);
    if (password.hash) wipe(*password.hash);
  }
};

boost::asio::awaitable<ApiResponse> outcome_response(ApiContext& ctx,
                                                     const AdminUserOutcome& outcome,
                                                     int success_status) {
  switch (outcome.kind) {
    case AdminUserOutcome::Kind::ok: {
      // Named, not a temporary in the co_await (core/offload.hpp).
      const std::vector<std::string> ids = {outcome.user.id};
      auto factors = co_await second_factors_of(ctx.auth, ids);
      if (!factors) break;
      ApiResponse response =
          json_response(success_status, admin_user_body_with(outcome.user, *factors));
      if (success_status == 201)
        response.headers.emplace_back("Location", "/admin/users/" + outcome.user.id);
      co_return response;
    }
    case AdminUserOutcome::Kind::not_found:
      co_return error_response(404);
    case AdminUserOutcome::Kind::exists:
      co_return error_response(409);
    case AdminUserOutcome::Kind::bad_password:
      co_return bad_request("password: must not be the account's e-mail");
    case AdminUserOutcome::Kind::bad_hash:
      co_return bad_request(outcome.problem);
    case AdminUserOutcome::Kind::busy:
      co_return hashing_busy();
    case AdminUserOutcome::Kind::unavailable:
      break;
  }
  co_return service_unavailable(std::chrono::seconds(5));
}

// A limit of 1 to 1000 in plain digits.
std::optional<int> page_size(std::string_view text) {
  int value = 0;
  auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size() || value < 1 ||
      value > kLargestPageSize || text.front() == '+')
    return std::nullopt;
  return value;
}

std::string users_page_body(const std::vector<UserRecord>& users,
                            const std::map<std::string, AccountFactors>& factors,
                            const std::optional<std::string>& next_cursor) {
  std::string out = R"({"nextCursor":)";
  if (next_cursor) {
    append_json_string(out, *next_cursor);
  } else {
    out += "null";
  }
  out += R"(,"users":[)";
  for (const UserRecord& user : users) {
    if (out.back() == '}') out += ',';
    out += admin_user_body_with(user, factors);
  }
  out += "]}";
  return out;
}

// A page of users in the admin view, with each one's second factors.
boost::asio::awaitable<ApiResponse> page_response(ApiContext& ctx,
                                                  const std::vector<UserRecord>& users,
                                                  const std::optional<std::string>& next_cursor) {
  std::vector<std::string> ids;
  ids.reserve(users.size());
  for (const UserRecord& user : users) ids.push_back(user.id);
  auto factors = co_await second_factors_of(ctx.auth, ids);
  if (!factors) co_return service_unavailable(std::chrono::seconds(5));
  co_return json_response(200, users_page_body(users, *factors, next_cursor));
}

}  // namespace

boost::asio::awaitable<ApiResponse> handle_admin_create_user(ApiContext& ctx, ApiRequest& request) {
  std::optional<ApiResponse> refusal;
  std::optional<AdminUserBody> body = read_body(request, AdminBody::create, refusal);
  if (!body) co_return *refusal;
  WipePasswords wipe_passwords{body->password};
  std::string admin;
  if (auto denied = co_await admin_access_problem(ctx, request, AdminScope::write, &admin))
    co_return *denied;
  const EventSource source = event_source(ctx, request, admin);
  AdminUserOutcome outcome =
      co_await create_admin_user(ctx.auth, body->fields, body->password, source);
  ApiResponse response = co_await outcome_response(ctx, outcome, 201);
  co_return response;
}

boost::asio::awaitable<ApiResponse> handle_admin_list_users(ApiContext& ctx, ApiRequest& request) {
  if (auto denied = co_await admin_access_problem(ctx, request, AdminScope::read))
    co_return *denied;
  auto query = parse_query(request.query);
  if (!query) co_return bad_request("query: malformed");
  int limit = kDefaultPageSize;
  if (auto it = query->find("limit"); it != query->end()) {
    auto parsed = page_size(it->second);
    if (!parsed) co_return bad_request("limit: a whole number from 1 to 1000");
    limit = *parsed;
  }
  std::string cursor;
  if (auto it = query->find("cursor"); it != query->end()) {
    // A cursor is the last id of the page before: a UUID as authd writes it.
    cursor = admin_id(it->second);
    if (!is_canonical_uuid(cursor)) co_return bad_request("cursor: not one authd gave");
  }
  if (auto it = query->find("email"); it != query->end()) {
    if (!is_valid_email(it->second)) co_return bad_request("email: not a valid address");
    AdminUserOutcome found = co_await find_admin_user(ctx.auth, canonical_email(it->second));
    if (found.kind == AdminUserOutcome::Kind::unavailable)
      co_return service_unavailable(std::chrono::seconds(5));
    std::vector<UserRecord> users;
    if (found.kind == AdminUserOutcome::Kind::ok) users.push_back(std::move(found.user));
    ApiResponse response = co_await page_response(ctx, users, std::nullopt);
    co_return response;
  }
  AdminUserPage page = co_await list_admin_users(ctx.auth, cursor, limit);
  if (!page.ok) co_return service_unavailable(std::chrono::seconds(5));
  ApiResponse response = co_await page_response(ctx, page.users, page.next_cursor);
  co_return response;
}

boost::asio::awaitable<ApiResponse> handle_admin_get_user(ApiContext& ctx, ApiRequest& request) {
  if (auto denied = co_await admin_access_problem(ctx, request, AdminScope::read))
    co_return *denied;
  AdminUserOutcome outcome = co_await read_admin_user(ctx.auth, admin_id(request.path_parameter));
  ApiResponse response = co_await outcome_response(ctx, outcome, 200);
  co_return response;
}

boost::asio::awaitable<ApiResponse> handle_admin_patch_user(ApiContext& ctx, ApiRequest& request) {
  std::optional<ApiResponse> refusal;
  std::optional<AdminUserBody> body = read_body(request, AdminBody::patch, refusal);
  if (!body) co_return *refusal;
  std::string admin;
  if (auto denied = co_await admin_access_problem(ctx, request, AdminScope::write, &admin))
    co_return *denied;
  const EventSource source = event_source(ctx, request, admin);
  AdminUserOutcome outcome =
      co_await patch_admin_user(ctx.auth, admin_id(request.path_parameter), body->fields, source);
  ApiResponse response = co_await outcome_response(ctx, outcome, 200);
  co_return response;
}

boost::asio::awaitable<ApiResponse> handle_admin_set_password(ApiContext& ctx,
                                                              ApiRequest& request) {
  std::optional<ApiResponse> refusal;
  std::optional<AdminUserBody> body = read_body(request, AdminBody::password, refusal);
  if (!body) co_return *refusal;
  WipePasswords wipe_passwords{body->password};
  std::string admin;
  if (auto denied = co_await admin_access_problem(ctx, request, AdminScope::write, &admin))
    co_return *denied;
  const EventSource source = event_source(ctx, request, admin);
  AdminUserOutcome outcome = co_await set_admin_user_password(
      ctx.auth, admin_id(request.path_parameter), body->password, source);
  ApiResponse response = co_await outcome_response(ctx, outcome, 200);
  co_return response;
}

boost::asio::awaitable<ApiResponse> handle_admin_delete_user(ApiContext& ctx, ApiRequest& request) {
  std::string admin;
  if (auto denied = co_await admin_access_problem(ctx, request, AdminScope::write, &admin))
    co_return *denied;
  const EventSource source = event_source(ctx, request, admin);
  AdminUserOutcome outcome =
      co_await delete_admin_user(ctx.auth, admin_id(request.path_parameter), source);
  if (outcome.kind == AdminUserOutcome::Kind::ok) co_return no_content();
  ApiResponse response = co_await outcome_response(ctx, outcome, 200);
  co_return response;
}

}  // namespace authd
