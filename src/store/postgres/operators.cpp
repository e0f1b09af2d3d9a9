// How PostgreSQL stores the console's operators and sessions (interface.md
// 21.2): one grant per account; console sessions only as token digests.
#include "store/postgres/connection.hpp"
#include "store/postgres/prune.hpp"
#include "store/postgres/transaction.hpp"

namespace authd::postgres {
namespace {

#define AUTHD_OPERATOR_COLUMNS "user_id, scope, granted_at, granted_by"
#define AUTHD_CONSOLE_SESSION_COLUMNS "token_digest, user_id, created_at, idle_until, expires_at"

OperatorRecord read_operator(const Row& row) {
  return OperatorRecord{row.text(0), row.text(1), row.integer(2), row.text(3)};
}

}  // namespace

void Operators::grant(const OperatorRecord& grant) {
  Params params;
  params.text(grant.user_id).text(grant.scope).integer(grant.granted_at).text(grant.granted_by);
  db_.run("INSERT INTO operators (" AUTHD_OPERATOR_COLUMNS
          ") VALUES ($1, $2, $3, $4) ON CONFLICT (user_id) DO UPDATE SET "
          "scope = excluded.scope, granted_at = excluded.granted_at, "
          "granted_by = excluded.granted_by",
          params);
}

bool Operators::revoke(std::string_view user_id) {
  Params params;
  params.text(user_id);
  db_.run("DELETE FROM console_sessions WHERE user_id = $1", params);
  return db_.run("DELETE FROM operators WHERE user_id = $1", params).affected() == 1;
}

std::optional<OperatorRecord> Operators::by_user(std::string_view user_id) {
  Params params;
  params.text(user_id);
  Result rows =
      db_.run("SELECT " AUTHD_OPERATOR_COLUMNS " FROM operators WHERE user_id = $1", params);
  if (rows.rows() == 0) return std::nullopt;
  return read_operator(Row(rows, 0));
}

std::vector<OperatorRecord> Operators::list() {
  Result rows =
      db_.run("SELECT " AUTHD_OPERATOR_COLUMNS " FROM operators ORDER BY granted_at, user_id");
  std::vector<OperatorRecord> grants;
  grants.reserve(static_cast<std::size_t>(rows.rows()));
  for (int i = 0; i < rows.rows(); ++i) grants.push_back(read_operator(Row(rows, i)));
  return grants;
}

void Operators::insert_session(const ConsoleSessionRecord& session) {
  Params params;
  params.digest(session.token_digest).text(session.user_id).integer(session.created_at);
  params.integer(session.idle_until).integer(session.expires_at);
  db_.run("INSERT INTO console_sessions (" AUTHD_CONSOLE_SESSION_COLUMNS
          ") VALUES ($1, $2, $3, $4, $5)",
          params);
}

std::optional<ConsoleSessionRecord> Operators::session_by_digest(const Sha256Digest& digest) {
  Params params;
  params.digest(digest);
  Result rows = db_.run("SELECT " AUTHD_CONSOLE_SESSION_COLUMNS
                        " FROM console_sessions WHERE token_digest = $1",
                        params);
  if (rows.rows() == 0) return std::nullopt;
  Row row(rows, 0);
  return ConsoleSessionRecord{row.digest(0), row.text(1), row.integer(2), row.integer(3),
                              row.integer(4)};
}

void Operators::touch_session(const Sha256Digest& digest, Millis idle_until) {
  Params params;
  params.digest(digest).integer(idle_until);
  db_.run("UPDATE console_sessions SET idle_until = $2 WHERE token_digest = $1", params);
}

bool Operators::end_session(const Sha256Digest& digest) {
  Params params;
  params.digest(digest);
  return db_.run("DELETE FROM console_sessions WHERE token_digest = $1", params).affected() == 1;
}

std::int64_t Operators::prune(Millis now) {
  Params params;
  params.integer(now);
  return db_.run(AUTHD_PRUNE("console_sessions", "idle_until <= $1 OR expires_at <= $1"), params)
      .affected();
}

#undef AUTHD_OPERATOR_COLUMNS
#undef AUTHD_CONSOLE_SESSION_COLUMNS

}  // namespace authd::postgres
