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

std::optional<SessionUser> SharedSessions::user_of(Connection& db, PipelineTurns& turns,
                                                   const Sha256Digest& digest) {
  return lookups_.share(turns, {digest, 0}, [&db](Shared::Group& group) { look_up(db, group); });
}

std::optional<UserRecord> SharedSessions::revoke_live(Connection& db, PipelineTurns& turns,
                                                      const Sha256Digest& digest, Millis now) {
  std::optional<SessionUser> ended =
      revokes_.share(turns, {digest, now}, [&db](Shared::Group& group) { revoke(db, group); });
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

void SharedSessions::look_up(Connection& db, Shared::Group& group) {
  if (group.asks.size() == 1) {
    group.answers.front() = user_of_alone(db, group.asks.front().digest);
    return;
  }
  std::vector<Sha256Digest> digests;
  digests.reserve(group.asks.size());
  for (const Ask& ask : group.asks) digests.push_back(ask.digest);
  Params params;
  params.digest_array(digests);
  for (auto& [place, user] : rows_by_place(db.run(kSessionUsersSql, params), digests.size()))
    group.answers[place] = std::move(user);
}

void SharedSessions::revoke(Connection& db, Shared::Group& group) {
  const std::vector<Ask>& asks = group.asks;
  if (asks.size() == 1) {
    std::optional<UserRecord> user = revoke_live_alone(db, asks.front().digest, asks.front().now);
    if (user) group.answers.front() = SessionUser{std::move(*user), 0};
    return;
  }
  // A token named by two units is sent once, at the earlier of their
  // times, and goes to the first unit (in the batch's order) that finds it
  // live at its own: the one that would have ended it had each run its own
  // DELETE in turn; the other finds it gone. The tokens go in byte order,
  // the order their rows are locked in, so that two batches that end the
  // same sessions lock them in one order.
  std::vector<std::size_t> order(asks.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&asks](std::size_t a, std::size_t b) {
    return asks[a].digest < asks[b].digest;
  });
  std::vector<std::vector<std::size_t>> units;  // per token sent, in the batch's order
  std::vector<Sha256Digest> digests;
  std::vector<Millis> earliest;
  for (std::size_t i : order) {
    if (!digests.empty() && digests.back() == asks[i].digest) {
      units.back().push_back(i);
      earliest.back() = std::min(earliest.back(), asks[i].now);
      continue;
    }
    units.push_back({i});
    digests.push_back(asks[i].digest);
    earliest.push_back(asks[i].now);
  }
  std::vector<std::string> nows;
  nows.reserve(earliest.size());
  for (Millis now : earliest) nows.push_back(std::to_string(now));
  Params params;
  params.digest_array(digests).text_array(nows);
  for (auto& [place, ended] : rows_by_place(db.run(kEndSessionsSql, params), digests.size())) {
    for (std::size_t unit : units[place]) {
      if (asks[unit].now < ended.expires_at) {
        group.answers[unit] = std::move(ended);
        break;
      }
    }
  }
}

}  // namespace authd::postgres
