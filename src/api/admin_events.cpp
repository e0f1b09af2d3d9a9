// GET /admin/events (interface.md 14.2), on the management listener: the
// audit trail, newest first, filtered by userId, type and since, paged by
// limit and cursor. The query's checks (400) come after the admin key's,
// as on GET /admin/users.
#include "api/handlers.hpp"

#include "api/admin_access.hpp"
#include "api/errors.hpp"
#include "api/query.hpp"
#include "auth/events/event_log.hpp"
#include "auth/events/events.hpp"

namespace authd {
namespace {

std::optional<std::string> member(const std::map<std::string, std::string, std::less<>>& query,
                                  std::string_view name) {
  auto it = query.find(name);
  if (it == query.end()) return std::nullopt;
  return it->second;
}

}  // namespace

boost::asio::awaitable<ApiResponse> handle_admin_list_events(ApiContext& ctx, ApiRequest& request) {
  if (auto denied = co_await admin_access_problem(ctx, request, AdminScope::read))
    co_return *denied;
  auto query = parse_query(request.query);
  if (!query) co_return bad_request("query: malformed");
  EventQuery asked{member(*query, "userId"), member(*query, "type"), member(*query, "since"),
                   member(*query, "limit"), member(*query, "cursor")};
  std::string problem;
  std::optional<EventFilter> filter = event_filter(asked, problem);
  if (!filter) co_return bad_request(problem);
  EventPage page = co_await list_events(ctx.auth, *filter);
  if (!page.ok) co_return service_unavailable(std::chrono::seconds(5));
  nlohmann::json events = nlohmann::json::array();
  for (const EventRecord& event : page.events) events.push_back(event_json(event));
  nlohmann::json body = {{"events", std::move(events)}};
  body["nextCursor"] = page.next_cursor ? nlohmann::json(*page.next_cursor) : nullptr;
  co_return json_response(200, body.dump());
}

}  // namespace authd
