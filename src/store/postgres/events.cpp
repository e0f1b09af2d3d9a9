// How PostgreSQL stores the audit trail: one row per event, ordered by an
// identity column (`seq`); a webhook delivery row beside it while webhooks
// are on (webhook_config), written by the same statement; the open
// repeated events by key (event_repeats).
#include <limits>

#include "store/event_columns.hpp"
#include "store/postgres/connection.hpp"
#include "store/postgres/event_batch.hpp"
#include "store/postgres/prune.hpp"
#include "store/postgres/read_pipeline.hpp"
#include "store/postgres/transaction.hpp"
#include "store/prune_limit.hpp"

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
// One round trip for both rows: the delivery is queued while the database
// says webhooks are on (webhook_config), whichever process writes.
constexpr const char* kInsertEvent =
    "WITH event AS (INSERT INTO events (id, at, type, user_id, actor, client_address, "
    "user_agent, request_id, detail) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) "
    "RETURNING seq, at), "
    "queued AS (INSERT INTO webhook_deliveries (event_seq, next_attempt_at) "
    "SELECT seq, at FROM event WHERE (SELECT delivering FROM webhook_config WHERE id = 1)) "
    "SELECT seq FROM event";
// The first of a repeated event: its delivery due at $12, its key open
// until $11.
constexpr const char* kInsertRepeatedEvent =
    "WITH event AS (INSERT INTO events (id, at, type, user_id, actor, client_address, "
    "user_agent, request_id, detail) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) "
    "RETURNING seq), "
    "queued AS (INSERT INTO webhook_deliveries (event_seq, next_attempt_at) "
    "SELECT seq, $12::bigint FROM event WHERE (SELECT delivering FROM webhook_config WHERE id = "
    "1)), "
    "noted AS (INSERT INTO event_repeats (key, event_seq, until) SELECT $10::text, seq, "
    "$11::bigint FROM event "
    "ON CONFLICT (key) DO UPDATE SET event_seq = excluded.event_seq, until = excluded.until) "
    "SELECT seq FROM event";

std::int64_t Events::append(const EventRecord& e) {
  return db_.run(kInsertEvent, event_params(e)).integer(0, 0);
}

// No round trip of its own: a logout's event goes with its COMMIT. In a
// batch of logouts, the batch's events go as one INSERT (event_batch.hpp).
void Events::add(const EventRecord& e) {
  if (PipelineTurns* batch = db_.transaction_batch()) {
    batch->events().add(e);
    return;
  }
  db_.send_ahead(kInsertEvent, event_params(e));
}

void Events::append_repeated(const EventRecord& e, std::string_view key, Millis until,
                             Millis deliver_at) {
  Params params = event_params(e);
  params.text(key).integer(until).integer(deliver_at);
  db_.run(kInsertRepeatedEvent, params);
}

// The key is locked by the throttle's count in this transaction
// (throttle_events.cpp), so two 429s of one key never both open an event.
bool Events::count_repeat(std::string_view key, Millis now) {
  Params params;
  params.text(key).integer(now);
  return db_.run(
                "UPDATE events SET detail = jsonb_set(detail::jsonb, '{count}', "
                "to_jsonb(coalesce((detail::jsonb ->> 'count')::bigint, 0) + 1))::text "
                "WHERE seq = (SELECT event_seq FROM event_repeats WHERE key = $1 AND until > $2)",
                params)
             .affected() == 1;
}

std::int64_t Events::last_seq() {
  return db_.run("SELECT coalesce(max(seq), 0) FROM events").integer(0, 0);
}

std::int64_t Events::prune_repeats(Millis now) {
  Params params;
  params.integer(now);
  return db_.run(AUTHD_PRUNE("event_repeats", "until <= $1"), params).affected();
}

void Events::forget_repeat(std::string_view key) {
  Params params;
  params.text(key);
  db_.run("DELETE FROM event_repeats WHERE key = $1", params);
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
  // the horizon, looked for among the oldest events only (no index by time
  // to keep up), and no more than a transaction's worth of them
  // (interface.md 8.2): when none of the oldest is kept, up to the next
  // one, whatever gaps the sequence has.
  return db_
      .run(
          "DELETE FROM events WHERE seq < coalesce("
          "(SELECT min(seq) FROM (SELECT seq, at FROM events ORDER BY seq" AUTHD_PRUNE_LIMIT
          ") AS oldest WHERE at >= $1), "
          "(SELECT seq FROM events ORDER BY seq LIMIT 1 OFFSET " AUTHD_ROWS_PRUNED_PER_TABLE_TEXT
          "), (SELECT max(seq) + 1 FROM events))",
          params)
      .affected();
}

}  // namespace authd::postgres
