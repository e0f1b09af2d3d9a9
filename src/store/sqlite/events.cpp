// How SQLite stores the audit trail: one row per event, ordered by its
// rowid (`seq`); a webhook delivery row beside it while webhooks are on.
#include <limits>

#include "store/event_columns.hpp"
#include "store/sqlite/connection.hpp"
#include "store/sqlite/transaction.hpp"

namespace authd::sqlite {

namespace {

void bind_event(Statement& st, const EventRecord& e) {
  st.bind(1, e.id).bind(2, e.at).bind(3, e.type).bind(4, e.user_id).bind(5, e.actor);
  st.bind(6, e.client_address).bind(7, e.user_agent).bind(8, e.request_id).bind(9, e.detail);
}

}  // namespace

std::int64_t Events::append(const EventRecord& e, bool to_webhooks) {
  auto st = db_.prepare(
      "INSERT INTO events (id, at, type, user_id, actor, client_address, user_agent, "
      "request_id, detail) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)");
  bind_event(st, e);
  st.run();
  return queue_delivery(to_webhooks, e.at);
}

// The seq of the event just inserted, its delivery queued with it.
std::int64_t Events::queue_delivery(bool to_webhooks, Millis at) {
  std::int64_t seq = db_.last_insert_id();
  if (to_webhooks) {
    auto queued =
        db_.prepare("INSERT INTO webhook_deliveries (event_seq, next_attempt_at) VALUES (?1, ?2)");
    queued.bind(1, seq).bind(2, at);
    queued.run();
  }
  return seq;
}

std::vector<EventRecord> Events::list(const EventFilter& filter) {
  // One statement per index that serves the filter (by user, by type, by
  // seq alone); the other conditions are checked on the rows it walks.
  const char* sql = nullptr;
  if (filter.user_id) {
    sql = "SELECT " AUTHD_EVENT_COLUMNS
          " FROM events WHERE user_id = ?1 AND (?2 IS NULL OR type = ?2) AND at >= ?3 "
          "AND seq < ?4 ORDER BY seq DESC LIMIT ?5";
  } else if (filter.type) {
    sql = "SELECT " AUTHD_EVENT_COLUMNS
          " FROM events WHERE ?1 IS NULL AND type = ?2 AND at >= ?3 AND seq < ?4 "
          "ORDER BY seq DESC LIMIT ?5";
  } else {
    sql = "SELECT " AUTHD_EVENT_COLUMNS
          " FROM events WHERE ?1 IS NULL AND ?2 IS NULL AND at >= ?3 AND seq < ?4 "
          "ORDER BY seq DESC LIMIT ?5";
  }
  auto st = db_.prepare(sql);
  st.bind(1, filter.user_id).bind(2, filter.type);
  st.bind(3, filter.since.value_or(std::numeric_limits<Millis>::min()));
  st.bind(4, filter.before_seq.value_or(std::numeric_limits<std::int64_t>::max()));
  st.bind(5, static_cast<std::int64_t>(filter.limit));
  std::vector<EventRecord> events;
  while (st.step()) events.push_back(read_event_record(st));
  return events;
}

std::int64_t Events::prune(Millis horizon) {
  // The deliveries go with their events (ON DELETE CASCADE).
  // In the order written: everything before the first event at or after
  // the horizon (a walk from the oldest, no index of its own to keep up).
  auto st = db_.prepare(
      "DELETE FROM events WHERE seq < coalesce((SELECT seq FROM events WHERE at >= ?1 "
      "ORDER BY seq LIMIT 1), (SELECT max(seq) + 1 FROM events))");
  st.bind(1, horizon);
  st.run();
  return db_.changes();
}

}  // namespace authd::sqlite
