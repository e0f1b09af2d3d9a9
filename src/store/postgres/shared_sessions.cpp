#include "store/postgres/shared_sessions.hpp"

#include <algorithm>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "store/postgres/connection.hpp"
#include "store/postgres/read_pipeline.hpp"
#include "store/user_columns.hpp"

namespace authd::postgres {
namespace {

// One row per digest that names a live session, with the digest's place
// in the array (from 1): a digest sent twice gets its row twice. The
// lateral join keeps the plan a primary-key lookup per digest whatever the
// array's length, as the statement for one digest is.
constexpr const char* kSessionUsersSql =
    "SELECT " AUTHD_USER_COLUMNS
    ", s.expires_at, d.n FROM unnest($1::bytea[]) WITH ORDINALITY AS d (digest, n)"
    " CROSS JOIN LATERAL (SELECT user_id, expires_at FROM sessions"
    " WHERE token_digest = d.digest AND revoked_at IS NULL) AS s"
    " JOIN users ON users.id = s.user_id";

// revoke_live_alone's statement for every digest of a batch, each with its
// `now`; each digest once (SharedSessions::revoke). The users are read from
// the statement's snapshot, with the ended session's expiry.
constexpr const char* kEndSessionsSql =
    "WITH ended AS (DELETE FROM sessions"
    " USING unnest($1::bytea[], $2::bigint[]) WITH ORDINALITY AS d (digest, now, n)"
    " WHERE token_digest = d.digest AND revoked_at IS NULL AND expires_at > d.now"
    " AND user_id IN (SELECT id FROM users WHERE NOT disabled) RETURNING d.n, user_id, expires_at)"
    " SELECT " AUTHD_USER_COLUMNS
    ", ended.expires_at, ended.n FROM ended JOIN users ON users.id = ended.user_id";

constexpr int kPlaceColumn = kSessionExpiresColumn + 1;  // in both statements

// Each row with the place it names in the array sent (from 0). A place out
// of range would be another unit's answer or none, and fails the group.
std::vector<std::pair<std::size_t, SessionUser>> rows_by_place(const Result& rows,
                                                               std::size_t places) {
  std::vector<std::pair<std::size_t, SessionUser>> found;
  found.reserve(static_cast<std::size_t>(rows.rows()));
  for (int i = 0; i < rows.rows(); ++i) {
    Row row(rows, i);
    const std::int64_t place = row.integer(kPlaceColumn);
    if (place < 1 || static_cast<std::size_t>(place) > places)
      throw StoreError("a shared session statement answered for a digest it was not sent");
    found.emplace_back(static_cast<std::size_t>(place - 1),
                       SessionUser{read_user(row), row.integer(kSessionExpiresColumn)});
  }
  return found;
}

}  // namespace

std::optional<SessionUser> SharedSessions::share(std::shared_ptr<Group>& open, PipelineTurns& turns,
                                                 const Sha256Digest& digest, const Millis* now,
                                                 const std::function<void(Group&)>& send) {
  // Refused before it joins: a unit refused after joining would leave its
  // token in the group, to be ended or counted on its behalf.
  if (std::current_exception()) throw StoreError("a unit waited in a catch handler");
  if (!open) open = std::make_shared<Group>();
  const std::shared_ptr<Group> group = open;
  const std::size_t mine = group->digests.size();
  group->digests.push_back(digest);
  if (now != nullptr) group->nows.push_back(*now);
  turns.wait_for_company();
  if (!group->sent) {
    // The first resumed: every unit that waited is in the group now, and
    // one that comes later starts a group of its own.
    group->sent = true;
    open.reset();
    try {
      group->found.resize(group->digests.size());
      send(*group);
    } catch (...) {
      group->failure = std::current_exception();
    }
    group->answered = true;
  } else if (!group->answered) {
    turns.wait_for_answer();  // behind the first one, which reads the rows
  }
  if (!group->answered)
    throw StoreError("a shared session statement was resumed before its answer");
  if (group->failure) std::rethrow_exception(group->failure);
  return std::move(group->found[mine]);
}

std::optional<SessionUser> SharedSessions::user_of(Connection& db, PipelineTurns& turns,
                                                   const Sha256Digest& digest) {
  return share(open_lookups_, turns, digest, nullptr, [&db](Group& group) { look_up(db, group); });
}

std::optional<UserRecord> SharedSessions::revoke_live(Connection& db, PipelineTurns& turns,
                                                      const Sha256Digest& digest, Millis now) {
  std::optional<SessionUser> ended =
      share(open_revokes_, turns, digest, &now, [&db](Group& group) { revoke(db, group); });
  if (!ended) return std::nullopt;
  return std::move(ended->user);
}

std::optional<SessionUser> SharedSessions::user_of_alone(Connection& db, const Sha256Digest& digest,
                                                         bool locking) {
  Params params;
  params.digest(digest);
  Result rows = locking ? db.run(AUTHD_SESSION_USER_SQL("$1") " FOR UPDATE OF users", params)
                        : db.run(AUTHD_SESSION_USER_SQL("$1"), params);
  if (rows.rows() == 0) return std::nullopt;
  Row row(rows, 0);
  return SessionUser{read_user(row), row.integer(kSessionExpiresColumn)};
}

// The live check and the DELETE in one statement, one round trip. Only the
// session's row is locked: a concurrent logout with the same token waits
// for it, then finds it gone. The user is read from the statement's
// snapshot, as the lookup of a separate statement would.
std::optional<UserRecord> SharedSessions::revoke_live_alone(Connection& db,
                                                            const Sha256Digest& digest,
                                                            Millis now) {
  Params params;
  params.digest(digest).integer(now);
  Result rows = db.run(
      "WITH ended AS (DELETE FROM sessions WHERE token_digest = $1 AND revoked_at IS NULL"
      " AND expires_at > $2 AND user_id IN (SELECT id FROM users WHERE NOT disabled)"
      " RETURNING user_id)"
      " SELECT " AUTHD_USER_COLUMNS " FROM users WHERE id = (SELECT user_id FROM ended)",
      params);
  if (rows.rows() == 0) return std::nullopt;
  return read_user(Row(rows, 0));
}

void SharedSessions::look_up(Connection& db, Group& group) {
  if (group.digests.size() == 1) {
    group.found.front() = user_of_alone(db, group.digests.front());
    return;
  }
  Params params;
  params.digest_array(group.digests);
  for (auto& [place, user] : rows_by_place(db.run(kSessionUsersSql, params), group.digests.size()))
    group.found[place] = std::move(user);
}

void SharedSessions::revoke(Connection& db, Group& group) {
  if (group.digests.size() == 1) {
    std::optional<UserRecord> user =
        revoke_live_alone(db, group.digests.front(), group.nows.front());
    if (user) group.found.front() = SessionUser{std::move(*user), 0};
    return;
  }
  // A token named by two units is sent once, at the earlier of their
  // times, and goes to the first unit (in the batch's order) that finds it
  // live at its own: the one that would have ended it had each run its own
  // DELETE in turn; the other finds it gone. The tokens go in byte order,
  // the order their rows are locked in, so that two batches that end the
  // same sessions lock them in one order.
  std::vector<std::size_t> order(group.digests.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&group](std::size_t a, std::size_t b) {
    return group.digests[a] < group.digests[b];
  });
  std::vector<std::vector<std::size_t>> units;  // per token sent, in the batch's order
  std::vector<Sha256Digest> digests;
  std::vector<Millis> earliest;
  for (std::size_t i : order) {
    if (!digests.empty() && digests.back() == group.digests[i]) {
      units.back().push_back(i);
      earliest.back() = std::min(earliest.back(), group.nows[i]);
      continue;
    }
    units.push_back({i});
    digests.push_back(group.digests[i]);
    earliest.push_back(group.nows[i]);
  }
  std::vector<std::string> nows;
  nows.reserve(earliest.size());
  for (Millis now : earliest) nows.push_back(std::to_string(now));
  Params params;
  params.digest_array(digests).text_array(nows);
  for (auto& [place, ended] : rows_by_place(db.run(kEndSessionsSql, params), digests.size())) {
    for (std::size_t unit : units[place]) {
      if (group.nows[unit] < ended.expires_at) {
        group.found[unit] = std::move(ended);
        break;
      }
    }
  }
}

}  // namespace authd::postgres
