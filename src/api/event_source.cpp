// Who a request's events come from (interface.md 14.1).
#include "api/api.hpp"
#include "auth/sessions/session.hpp"
#include "core/utf8.hpp"

namespace authd {

EventSource event_source(const ApiContext& /*ctx*/, const ApiRequest& request, std::string actor) {
  EventSource source;
  source.actor = std::move(actor);
  source.client_address = request.client_address;
  // As much of it as a session keeps (auth/sessions/session.hpp).
  if (request.user_agent) source.user_agent = utf8_prefix(*request.user_agent, kMaxUserAgentBytes);
  source.request_id = std::string(request.request_id);
  return source;
}

}  // namespace authd
