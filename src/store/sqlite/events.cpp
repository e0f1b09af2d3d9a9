// How SQLite stores the audit trail: one row per event, ordered by its
// rowid (`seq`); a webhook delivery row beside it while webhooks are on
// (webhook_config); the open repeated events by key (event_repeats).
#include <algorithm>
#include <limits>

#include "store/event_columns.hpp"
#include "store/prune_limit.hpp"
#include "store/sqlite/connection.hpp"
#include "store/sqlite/prune.hpp"
#include "store/sqlite/transaction.hpp"

namespace authd::sqlite {

namespace {

void bind_event(Statement& st, const EventRecord& e) {
  st.bind(1, e.id).bind(2, e.at).bind(3, e.type).bind(4, e.user_id).bind(5, e.actor);
  st.bind(6, e.client_address).bind(7, e.user_agent).bind(8, e.request_id).bind(9, e.detail);
}

}  // namespace

std::int64_t Events::append(const EventRecord& e) {
  std::int64_t seq = insert(e);
  queue_delivery(seq, e.at);
  return seq;
}

std::int64_t Events::insert(const EventRecord& e) {
  auto st = db_.prepare(
      "INSERT INTO events (id, at, type, user_id, actor, client_address, user_agent, "
      "request_id, detail) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)");
  bind_event(st, e);
  st.run();
  return db_.last_insert_id();
}

// The database, not the writer, says whether webhooks are on.
void Events::queue_delivery(std::int64_t seq, Millis due) {
  auto queued = db_.prepare(
      "INSERT INTO webhook_deliveries (event_seq, next_attempt_at) SELECT ?1, ?2 "
      "WHERE (SELECT delivering FROM webhook_config WHERE id = 1)");
  queued.bind(1, seq).bind(2, due);
  queued.run();
}

void Events::append_repeated(const EventRecord& e, std::string_view key, Millis until,
                             Millis deliver_at) {
  std::int64_t seq = insert(e);
  queue_delivery(seq, deliver_at);
  auto noted = db_.prepare(
      "INSERT INTO event_repeats (key, event_seq, until) VALUES (?1, ?2, ?3) "
      "ON CONFLICT (key) DO UPDATE SET event_seq = excluded.event_seq, until = excluded.until");
  noted.bind(1, key).bind(2, seq).bind(3, until);
  noted.run();
}

bool Events::count_repeat(std::string_view key, Millis now) {
  auto st = db_.prepare(
      "UPDATE events SET detail = json_set(detail, '$.count', "
      "coalesce(json_extract(detail, '$.count'), 0) + 1) "
      "WHERE seq = (SELECT event_seq FROM event_repeats WHERE key = ?1 AND until > ?2)");
  st.bind(1, key).bind(2, now);
  st.run();
  return db_.changes() == 1;
}

std::int64_t Events::last_seq() {
  auto st = db_.prepare("SELECT coalesce(max(seq), 0) FROM events");
  return st.step() ? st.integer(0) : 0;
}

std::int64_t Events::prune_repeats(Millis now) {
  auto st = db_.prepare(AUTHD_PRUNE("event_repeats", "key", "until <= ?1"));
  st.bind(1, now);
  st.run();
  return db_.changes();
}

void Events::forget_repeat(std::string_view key) {
  auto st = db_.prepare("DELETE FROM event_repeats WHERE key = ?1");
  st.bind(1, key);
  st.run();
}

// Every event with seq <= through is in events_by_user (when it names an
// account) and events_by_type, every newer one is not: index_appended
// moves both in one transaction.
std::int64_t Events::indexed_through() {
  auto st = db_.prepare("SELECT through FROM events_index");
  return st.step() ? st.integer(0) : 0;
}

// The indexed part, newest first: the index table's key walked backwards,
// each event read by its seq.
const char* const Events::kIndexedByUser =
    "SELECT " AUTHD_EVENT_COLUMNS
    " FROM (SELECT seq AS indexed_seq FROM events_by_user WHERE user_id = ?1 AND seq < ?4 "
    "AND seq > ?6) JOIN events ON seq = indexed_seq WHERE (?2 IS NULL OR type = ?2) "
    "AND at >= ?3 ORDER BY indexed_seq DESC LIMIT ?5";
const char* const Events::kIndexedByType =
    "SELECT " AUTHD_EVENT_COLUMNS
    " FROM (SELECT seq AS indexed_seq FROM events_by_type WHERE type = ?2 AND seq < ?4 "
    "AND seq > ?6) JOIN events ON seq = indexed_seq WHERE ?1 IS NULL AND at >= ?3 "
    "ORDER BY indexed_seq DESC LIMIT ?5";

// The events of `filter` with range.after < seq < range.before, newest
// first, at most `limit`, appended to `events`.
void Events::read_into(std::vector<EventRecord>& events, const char* sql, const EventFilter& filter,
                       SeqRange range, std::int64_t limit) {
  auto st = db_.prepare(sql);
  st.bind(1, filter.user_id).bind(2, filter.type);
  st.bind(3, filter.since.value_or(std::numeric_limits<Millis>::min()));
  st.bind(4, range.before).bind(5, limit).bind(6, range.after);
  while (st.step()) events.push_back(read_event_record(st));
}

std::vector<EventRecord> Events::list(const EventFilter& filter) {
  constexpr std::int64_t kNone = std::numeric_limits<std::int64_t>::min();
  std::int64_t before_seq = filter.before_seq.value_or(std::numeric_limits<std::int64_t>::max());
  auto limit = static_cast<std::int64_t>(filter.limit);
  std::vector<EventRecord> events;
  if (!filter.user_id && !filter.type) {
    read_into(events,
              "SELECT " AUTHD_EVENT_COLUMNS
              " FROM events WHERE ?1 IS NULL AND ?2 IS NULL AND at >= ?3 AND seq < ?4 "
              "AND seq > ?6 ORDER BY seq DESC LIMIT ?5",
              filter, {kNone, before_seq}, limit);
    return events;
  }
  // The events not yet indexed are all newer than the indexed ones: they
  // come first, walked by seq from the newest down to `through`; then an
  // index table serves the rest of the page.
  std::int64_t through = indexed_through();
  read_into(events,
            "SELECT " AUTHD_EVENT_COLUMNS
            " FROM events WHERE seq > ?6 AND (?1 IS NULL OR user_id = ?1) "
            "AND (?2 IS NULL OR type = ?2) AND at >= ?3 AND seq < ?4 ORDER BY seq DESC LIMIT ?5",
            filter, {through, before_seq}, limit);
  auto found = static_cast<std::int64_t>(events.size());
  if (found < limit)
    read_into(events, filter.user_id ? kIndexedByUser : kIndexedByType, filter,
              {kNone, std::min(before_seq, through + 1)}, limit - found);
  return events;
}

// In key order, so that each index page is written once per pass however
// many of its events arrived since the last one.
std::int64_t Events::index_appended(std::int64_t at_most) {
  std::int64_t through = indexed_through();
  auto last = db_.prepare("SELECT max(seq) FROM events");
  std::int64_t newest = last.step() ? last.integer(0) : 0;
  std::int64_t upto = std::min(newest, through + at_most);
  if (upto <= through) return 0;
  auto by_user = db_.prepare(
      "INSERT INTO events_by_user (user_id, seq) SELECT user_id, seq FROM events "
      "WHERE seq > ?1 AND seq <= ?2 AND user_id IS NOT NULL ORDER BY user_id, seq");
  by_user.bind(1, through).bind(2, upto);
  by_user.run();
  auto by_type = db_.prepare(
      "INSERT INTO events_by_type (type, seq) SELECT type, seq FROM events "
      "WHERE seq > ?1 AND seq <= ?2 ORDER BY type, seq");
  by_type.bind(1, through).bind(2, upto);
  by_type.run();
  std::int64_t indexed = db_.changes();
  auto moved = db_.prepare("UPDATE events_index SET through = ?1");
  moved.bind(1, upto);
  moved.run();
  return indexed;
}

std::int64_t Events::prune(Millis horizon) {
  // In the order written: everything before the first event at or after
  // the horizon, looked for among the oldest events only (no index by time
  // to keep up), and no more than a transaction's worth of them
  // (interface.md 8.2): when none of the oldest is kept, up to the next one.
  auto first_kept = db_.prepare(
      "SELECT coalesce("
      "(SELECT min(seq) FROM (SELECT seq, at FROM events ORDER BY seq" AUTHD_PRUNE_LIMIT
      ") AS oldest WHERE at >= ?1), "
      "(SELECT seq FROM events ORDER BY seq LIMIT 1 OFFSET " AUTHD_ROWS_PRUNED_PER_TABLE_TEXT
      "), (SELECT max(seq) + 1 FROM events))");
  first_kept.bind(1, horizon);
  std::optional<std::int64_t> found =
      first_kept.step() ? first_kept.optional_integer(0) : std::nullopt;
  if (!found) return 0;  // no event at all
  std::int64_t keep_from = *found;
  // Their index entries first, each found by its key, and any open
  // repeated event among them (an emptied table reuses seqs: a count must
  // never land on another event); the deliveries go with their events
  // (ON DELETE CASCADE).
  for (const char* sql :
       {"DELETE FROM events_by_user WHERE (user_id, seq) IN "
        "(SELECT user_id, seq FROM events WHERE seq < ?1 AND user_id IS NOT NULL)",
        "DELETE FROM events_by_type WHERE (type, seq) IN "
        "(SELECT type, seq FROM events WHERE seq < ?1)",
        "DELETE FROM event_repeats WHERE event_seq < ?1"}) {
    auto entries = db_.prepare(sql);
    entries.bind(1, keep_from);
    entries.run();
  }
  auto st = db_.prepare("DELETE FROM events WHERE seq < ?1");
  st.bind(1, keep_from);
  st.run();
  std::int64_t removed = db_.changes();
  // An emptied table gives its next row seq 1 again (SQLite's rowid):
  // `through` comes down with it, or that event would be taken as indexed.
  db_.execute(
      "UPDATE events_index SET through = coalesce((SELECT max(seq) FROM events), 0) "
      "WHERE through > coalesce((SELECT max(seq) FROM events), 0)");
  return removed;
}

}  // namespace authd::sqlite
