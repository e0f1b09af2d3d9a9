#include "store/postgres/event_batch.hpp"

#include <optional>
#include <string>

#include "store/postgres/connection.hpp"

namespace authd::postgres {
namespace {

// The rows in the order added (ORDINALITY), so that their `seq`s follow it.
#define AUTHD_INSERT_EVENTS                                                                       \
  "INSERT INTO events (id, at, type, user_id, actor, client_address, user_agent, "                \
  "request_id, detail) SELECT id, at, type, user_id, actor, client_address, user_agent, "         \
  "request_id, detail FROM unnest($1::text[], $2::bigint[], $3::text[], $4::text[], $5::text[], " \
  "$6::text[], $7::text[], $8::text[], $9::text[]) WITH ORDINALITY AS e (id, at, type, "          \
  "user_id, actor, client_address, user_agent, request_id, detail, n) ORDER BY n"

// The deliveries queued while the database says webhooks are on.
constexpr const char* kInsertEvents =
    "WITH event AS (" AUTHD_INSERT_EVENTS
    " RETURNING seq, at) INSERT INTO webhook_deliveries (event_seq, next_attempt_at)"
    " SELECT seq, at FROM event WHERE (SELECT delivering FROM webhook_config WHERE id = 1)";

#undef AUTHD_INSERT_EVENTS

// Column by column, as arrays.
Params event_arrays(const std::vector<EventRecord>& events) {
  std::vector<std::optional<std::string>> id, at, type, user_id, actor, client_address, user_agent,
      request_id, detail;
  for (const EventRecord& e : events) {
    id.emplace_back(e.id);
    at.emplace_back(std::to_string(e.at));
    type.emplace_back(e.type);
    user_id.push_back(e.user_id);
    actor.emplace_back(e.actor);
    client_address.push_back(e.client_address);
    user_agent.push_back(e.user_agent);
    request_id.push_back(e.request_id);
    detail.emplace_back(e.detail);
  }
  Params params;
  params.text_array(id).text_array(at).text_array(type).text_array(user_id).text_array(actor);
  params.text_array(client_address).text_array(user_agent).text_array(request_id);
  params.text_array(detail);
  return params;
}

}  // namespace

void EventBatch::add(const EventRecord& event) { events_.push_back(event); }

void EventBatch::send_ahead(Connection& db) {
  if (events_.empty()) return;
  db.send_ahead(kInsertEvents, event_arrays(events_));
  events_.clear();
}

}  // namespace authd::postgres
