#include "store/postgres/shared_throttle.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdint>

#include "store/postgres/connection.hpp"

namespace authd::postgres {
namespace {

// Plan: Index Only Scan Backward using throttle_events_by_key, stopped by
// the LIMIT: no sort, `most` rows at most. Planned again each second
// (run_replanned): the table can grow from nothing faster than ANALYZE
// follows, and a plan made while it was nearly empty would read all of it.
constexpr const char* kCountSql =
    "SELECT at FROM throttle_events WHERE key = $1 AND at > $2 ORDER BY at DESC LIMIT $3";

// kCountSql for every key of a group, each row with its key's place in
// the arrays (from 1). The lateral join keeps kCountSql's plan per key
// whatever the arrays' length.
constexpr const char* kSharedCountSql =
    "SELECT d.n, t.at FROM unnest($1::text[], $2::bigint[], $3::bigint[])"
    " WITH ORDINALITY AS d (key, after, most, n)"
    " CROSS JOIN LATERAL (SELECT at FROM throttle_events WHERE key = d.key AND at > d.after"
    " ORDER BY at DESC LIMIT d.most) AS t";

constexpr const char* kInsertEventsSql =
    "INSERT INTO throttle_events (key, at) SELECT key, at FROM unnest($1::text[], $2::bigint[])"
    " AS e (key, at)";

}  // namespace

std::vector<Millis> SharedThrottle::event_times(Connection& db, PipelineTurns& turns,
                                                std::string_view key, Millis after, int most) {
  return counts_.share(turns, {std::string(key), after, most},
                       [this, &db](Shared::Group& group) { count(db, group); });
}

std::vector<Millis> SharedThrottle::event_times_alone(Connection& db, std::string_view key,
                                                      Millis after, int most) {
  Params params;
  params.text(key).integer(after).integer(most);
  Result rows = db.run_replanned(kCountSql, params);
  std::vector<Millis> times(static_cast<std::size_t>(rows.rows()));
  for (int i = 0; i < rows.rows(); ++i)  // newest first: fill from the back
    times[times.size() - 1 - static_cast<std::size_t>(i)] = rows.integer(i, 0);
  return times;
}

void SharedThrottle::count(Connection& db, Shared::Group& group) {
  send_ahead(db);  // the events added so far are counted
  if (group.asks.size() == 1) {
    const Ask& ask = group.asks.front();
    group.answers.front() = event_times_alone(db, ask.key, ask.after, ask.most);
    return;
  }
  std::vector<std::string> keys;
  std::vector<std::string> afters;
  std::vector<std::string> mosts;
  for (const Ask& ask : group.asks) {
    keys.push_back(ask.key);
    afters.push_back(std::to_string(ask.after));
    mosts.push_back(std::to_string(ask.most));
  }
  Params params;
  params.text_array(keys).text_array(afters).text_array(mosts);
  Result rows = db.run_replanned(kSharedCountSql, params);
  for (int i = 0; i < rows.rows(); ++i) {
    const std::int64_t place = rows.integer(i, 0);
    if (place < 1 || static_cast<std::size_t>(place) > group.asks.size())
      throw StoreError("a shared throttle count answered for a key it was not sent");
    group.answers[static_cast<std::size_t>(place - 1)].push_back(rows.integer(i, 1));
  }
  // Oldest first, as event_times_alone returns them.
  for (std::vector<Millis>& times : group.answers) std::sort(times.begin(), times.end());
}

void SharedThrottle::add_event(std::string_view key, Millis at) {
  keys_.emplace_back(key);
  ats_.push_back(std::to_string(at));
}

void SharedThrottle::send_ahead(Connection& db) {
  if (keys_.empty()) return;
  Params params;
  params.text_array(keys_).text_array(ats_);
  db.send_ahead(kInsertEventsSql, params);
  keys_.clear();
  ats_.clear();
}

}  // namespace authd::postgres
