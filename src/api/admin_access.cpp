#include "api/admin_access.hpp"

#include "api/bearer.hpp"
#include "api/credentials.hpp"
#include "api/errors.hpp"
#include "core/ascii.hpp"
#include "core/wipe.hpp"

namespace authd {

std::string admin_id(std::string_view text) {
  std::string id(text);
  for (char& c : id) c = ascii_lower(c);
  return id;
}

boost::asio::awaitable<std::optional<ApiResponse>> admin_access_problem(ApiContext& ctx,
                                                                        const ApiRequest& request,
                                                                        AdminScope needed,
                                                                        std::string* caller_name) {
  BearerCredentials credentials = parse_bearer(request.authorization);
  WipeOnExit wipe_key(credentials.token);
  if (auto problem = credentials_problem(credentials)) co_return problem;
  AdminCaller caller = co_await authenticate_admin(ctx.auth, credentials.token);
  switch (caller.kind) {
    case AdminCaller::Kind::ok:
      break;
    case AdminCaller::Kind::invalid_key:
      co_return invalid_token();
    case AdminCaller::Kind::unavailable:
      co_return service_unavailable(std::chrono::seconds(5));
  }
  if (needed == AdminScope::write && caller.scope != AdminScope::write)
    co_return error_response(403);
  if (caller_name != nullptr) *caller_name = caller.name;
  co_return std::nullopt;
}

}  // namespace authd
