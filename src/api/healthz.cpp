// GET /healthz (interface.md 7.4): 200 when the store answers, else 503.
#include "api/handlers.hpp"

#include "api/errors.hpp"
#include "store/database.hpp"

namespace authd {

boost::asio::awaitable<ApiResponse> handle_healthz(ApiContext& ctx, ApiRequest& /*request*/) {
  bool healthy = co_await ctx.auth.db.healthy();
  if (healthy) co_return json_response(200, R"({"status":"ok"})");
  co_return service_unavailable(std::chrono::seconds(5));
}

}  // namespace authd
