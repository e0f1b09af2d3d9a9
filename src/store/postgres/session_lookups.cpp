#include "store/postgres/session_lookups.hpp"

#include <cstdint>
#include <utility>

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
constexpr int kPlaceColumn = kSessionExpiresColumn + 1;

}  // namespace

std::optional<SessionUser> SessionLookups::user_of(Connection& db, PipelineTurns& turns,
                                                   const Sha256Digest& digest) {
  if (!open_) open_ = std::make_shared<Group>();
  const std::shared_ptr<Group> group = open_;
  const std::size_t mine = group->digests.size();
  group->digests.push_back(digest);
  turns.wait_for_company();
  if (!group->sent) {
    // The first resumed: every lookup that waited is in the group now, and
    // a lookup that comes later starts a group of its own.
    group->sent = true;
    open_.reset();
    try {
      look_up(db, *group);
    } catch (...) {
      group->failure = std::current_exception();
    }
    group->answered = true;
  } else if (!group->answered) {
    turns.wait_for_answer();  // behind the first one, which reads the rows
  }
  if (!group->answered) throw StoreError("a shared session lookup was resumed before its answer");
  if (group->failure) std::rethrow_exception(group->failure);
  return std::move(group->found[mine]);
}

std::optional<SessionUser> SessionLookups::user_of_alone(Connection& db,
                                                         const Sha256Digest& digest) {
  Params params;
  params.digest(digest);
  Result rows = db.run(AUTHD_SESSION_USER_SQL("$1"), params);
  if (rows.rows() == 0) return std::nullopt;
  Row row(rows, 0);
  return SessionUser{read_user(row), row.integer(kSessionExpiresColumn)};
}

void SessionLookups::look_up(Connection& db, Group& group) {
  group.found.resize(group.digests.size());
  if (group.digests.size() == 1) {
    group.found.front() = user_of_alone(db, group.digests.front());
    return;
  }
  Params params;
  params.digest_array(group.digests);
  Result rows = db.run(kSessionUsersSql, params);
  for (int i = 0; i < rows.rows(); ++i) {
    Row row(rows, i);
    const std::int64_t place = row.integer(kPlaceColumn);
    if (place < 1 || static_cast<std::size_t>(place) > group.found.size())
      throw StoreError("a shared session lookup answered for a digest it was not sent");
    group.found[static_cast<std::size_t>(place - 1)] =
        SessionUser{read_user(row), row.integer(kSessionExpiresColumn)};
  }
}

}  // namespace authd::postgres
