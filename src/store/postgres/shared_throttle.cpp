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
  if (std::optional<std::vector<Millis>> known = known_times(key, after, most)) return *known;
  std::string owned(key);
  std::vector<Millis> times = counts_.share(
      turns, {owned, after, most}, [this, &db](Shared::Group& group) { count(db, group); });
  // Read under the batch's lock, with every event the batch added before:
  // until the transaction ends, only the units that take their turn on the
  // key change its events, and they tell (note_added, forget).
  if (turns_.contains(owned)) learn(owned, after, most, times);
  return times;
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
  note_added(key, at);
}

void SharedThrottle::send_ahead(Connection& db) {
  if (keys_.empty()) return;
  Params params;
  params.text_array(keys_).text_array(ats_);
  db.send_ahead(kInsertEventsSql, params);
  keys_.clear();
  ats_.clear();
}

void SharedThrottle::order_keys(std::span<const TransactionUnit> units) {
  turns_.clear();
  known_.clear();
  std::map<std::string_view, std::vector<std::size_t>> named;
  for (std::size_t i = 0; i < units.size(); ++i)
    for (const std::string& key : units[i].lock_keys) {
      std::vector<std::size_t>& by = named[key];
      if (by.empty() || by.back() != i) by.push_back(i);
    }
  for (auto& [key, by] : named) {
    if (by.size() < 2) continue;
    const std::size_t n = by.size();
    turns_.emplace(std::string(key), KeyTurns{std::move(by), std::vector<bool>(n, false),
                                              std::vector<bool>(n, false), 0});
  }
}

void SharedThrottle::take_turn(PipelineTurns& turns, std::string_view key) {
  auto found = turns_.find(key);
  if (found == turns_.end()) return;
  KeyTurns& shared = found->second;
  auto mine = std::find(shared.units.begin(), shared.units.end(), turns.running_unit());
  if (mine == shared.units.end()) return;  // not named by this unit: none waits for it
  const auto place = static_cast<std::size_t>(mine - shared.units.begin());
  if (shared.released[place])
    throw StoreError("a unit came back to a throttling key it had let go");
  while (shared.next != place) {
    shared.waiting[place] = true;
    turns.wait_for_turn();
  }
}

void SharedThrottle::release(PipelineTurns& turns, std::string_view key) {
  auto found = turns_.find(key);
  if (found == turns_.end()) return;
  KeyTurns& shared = found->second;
  auto mine = std::find(shared.units.begin(), shared.units.end(), turns.running_unit());
  if (mine == shared.units.end()) return;
  release_at(turns, shared, static_cast<std::size_t>(mine - shared.units.begin()));
}

void SharedThrottle::release_all(PipelineTurns& turns, std::size_t unit) noexcept {
  for (auto& [key, shared] : turns_) {
    auto mine = std::find(shared.units.begin(), shared.units.end(), unit);
    if (mine != shared.units.end())
      release_at(turns, shared, static_cast<std::size_t>(mine - shared.units.begin()));
  }
}

void SharedThrottle::release_at(PipelineTurns& turns, KeyTurns& shared,
                                std::size_t place) noexcept {
  shared.released[place] = true;
  while (shared.next < shared.units.size() && shared.released[shared.next]) ++shared.next;
  if (shared.next < shared.units.size() && shared.waiting[shared.next]) {
    shared.waiting[shared.next] = false;
    turns.give_turn(shared.units[shared.next]);
  }
}

// The newest `most` events later than `after`, when what is known holds
// them all: a window that starts no earlier than the one read, and no more
// events than were read (or every event of that window was).
std::optional<std::vector<Millis>> SharedThrottle::known_times(std::string_view key, Millis after,
                                                               int most) const {
  auto found = known_.find(key);
  if (found == known_.end()) return std::nullopt;
  const Known& known = found->second;
  if (after < known.after || (most > known.most && !known.complete)) return std::nullopt;
  auto first = std::upper_bound(known.times.begin(), known.times.end(), after);
  const auto in_window = static_cast<std::size_t>(known.times.end() - first);
  const std::size_t take = std::min(in_window, static_cast<std::size_t>(std::max(most, 0)));
  return std::vector<Millis>(known.times.end() - static_cast<std::ptrdiff_t>(take),
                             known.times.end());
}

void SharedThrottle::learn(const std::string& key, Millis after, int most,
                           const std::vector<Millis>& times) {
  known_[key] =
      Known{after, most, times.size() < static_cast<std::size_t>(std::max(most, 0)), times};
}

void SharedThrottle::note_added(std::string_view key, Millis at) {
  auto found = known_.find(key);
  if (found == known_.end()) return;
  Known& known = found->second;
  // Older than the oldest of a partial read: events between them are not
  // known, so the newest ones are not either.
  if (!known.complete && (known.times.empty() || at < known.times.front())) {
    known_.erase(found);
    return;
  }
  known.times.insert(std::upper_bound(known.times.begin(), known.times.end(), at), at);
}

void SharedThrottle::note_inserted(std::string_view key, Millis at) { note_added(key, at); }

void SharedThrottle::forget(std::string_view key) {
  auto found = known_.find(key);
  if (found != known_.end()) known_.erase(found);
}

}  // namespace authd::postgres
