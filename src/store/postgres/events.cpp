// How PostgreSQL stores the audit trail: one row per event, ordered by an
// identity column (`seq`); a webhook delivery row beside it while webhooks
// are on, written by the same statement.
#include <limits>

#include "store/event_columns.hpp"
#include "store/postgres/connection.hpp"
#include "store/postgres/event_batch.hpp"
#include "store/postgres/read_pipeline.hpp"
#include "store/postgres/transaction.hpp"

namespace authd::postgres {

namespace {

Params event_params(const EventRecord& e) {
  Params params;
  params.text(e.id).integer(e.at).text(e.type).text(e.user_id).text(e.actor);
  params.text(e.client_address).text(e.user_agent).text(e.request_id).text(e.detail);
  return params;
}

}  // namespace

// The statements' text, shared by append and add, so that each is prepared
// once per connection (statements are cached by the literal's address).
constexpr const char* kInsertEvent =
    "INSERT INTO events (id, at, type, user_id, actor, client_address, user_agent, "
    "request_id, detail) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) RETURNING seq";
// One round trip for both rows.
constexpr const char* kInsertEventForWebhooks =
    "WITH event AS (INSERT INTO events (id, at, type, user_id, actor, client_address, "
    "user_agent, request_id, detail) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) "
    "RETURNING seq, at) "
    "INSERT INTO webhook_deliveries (event_seq, next_attempt_at) "
    "SELECT seq, at FROM event RETURNING event_seq";

std::int64_t Events::append(const EventRecord& e, bool to_webhooks) {
  return db_.run(to_webhooks ? kInsertEventForWebhooks : kInsertEvent, event_params(e))
      .integer(0, 0);
}

// No round trip of its own: a logout's event goes with its COMMIT. In a
// batch of logouts, the batch's events go as one INSERT (event_batch.hpp).
void Events::add(const EventRecord& e, bool to_webhooks) {
  if (PipelineTurns* batch = db_.transaction_batch()) {
    batch->events().add(e, to_webhooks);
    return;
  }
  db_.send_ahead(to_webhooks ? kInsertEventForWebhooks : kInsertEvent, event_params(e));
}

std::vector<EventRecord> Events::list(const EventFilter& filter) {
  // One statement per index that serves the filter (by user, by type, by
  // seq alone); the other conditions are checked on the rows it walks.
  const char* sql = nullptr;
  if (filter.user_id) {
    sql = "SELECT " AUTHD_EVENT_COLUMNS
          " FROM events WHERE user_id = $1 AND ($2::text IS NULL OR type = $2) AND at >= $3 "
          "AND seq < $4 ORDER BY seq DESC LIMIT $5";
  } else if (filter.type) {
    sql = "SELECT " AUTHD_EVENT_COLUMNS
          " FROM events WHERE $1::text IS NULL AND type = $2 AND at >= $3 AND seq < $4 "
          "ORDER BY seq DESC LIMIT $5";
  } else {
    sql = "SELECT " AUTHD_EVENT_COLUMNS
          " FROM events WHERE $1::text IS NULL AND $2::text IS NULL AND at >= $3 AND seq < $4 "
          "ORDER BY seq DESC LIMIT $5";
  }
  Params params;
  params.text(filter.user_id).text(filter.type);
  params.integer(filter.since.value_or(std::numeric_limits<Millis>::min()));
  params.integer(filter.before_seq.value_or(std::numeric_limits<std::int64_t>::max()));
  params.integer(static_cast<std::int64_t>(filter.limit));
  Result rows = db_.run(sql, params);
  std::vector<EventRecord> events;
  events.reserve(static_cast<std::size_t>(rows.rows()));
  for (int i = 0; i < rows.rows(); ++i) events.push_back(read_event_record(Row(rows, i)));
  return events;
}

std::int64_t Events::prune(Millis horizon) {
  // The deliveries go with their events (ON DELETE CASCADE).
  Params params;
  params.integer(horizon);
  // In the order written: everything before the first event at or after
  // the horizon (a walk from the oldest, no index of its own to keep up).
  return db_
      .run(
          "DELETE FROM events WHERE seq < coalesce((SELECT seq FROM events WHERE at >= $1 "
          "ORDER BY seq LIMIT 1), (SELECT max(seq) + 1 FROM events))",
          params)
      .affected();
}

}  // namespace authd::postgres
