// How SQLite stores the console's operators and sessions (interface.md
// 21.2): one grant per account; console sessions only as token digests.
#include "store/sqlite/connection.hpp"
#include "store/sqlite/prune.hpp"
#include "store/sqlite/transaction.hpp"

namespace authd::sqlite {
namespace {

#define AUTHD_OPERATOR_COLUMNS "user_id, scope, granted_at, granted_by"
#define AUTHD_CONSOLE_SESSION_COLUMNS "token_digest, user_id, created_at, idle_until, expires_at"

OperatorRecord read_operator(const Statement& st) {
  return OperatorRecord{st.text(0), st.text(1), st.integer(2), st.text(3)};
}

}  // namespace

void Operators::grant(const OperatorRecord& grant) {
  auto st = db_.prepare("INSERT INTO operators (" AUTHD_OPERATOR_COLUMNS
                        ") VALUES (?1, ?2, ?3, ?4) ON CONFLICT (user_id) DO UPDATE SET "
                        "scope = excluded.scope, granted_at = excluded.granted_at, "
                        "granted_by = excluded.granted_by");
  st.bind(1, grant.user_id)
      .bind(2, grant.scope)
      .bind(3, grant.granted_at)
      .bind(4, grant.granted_by);
  st.run();
}

bool Operators::revoke(std::string_view user_id) {
  auto sessions = db_.prepare("DELETE FROM console_sessions WHERE user_id = ?1");
  sessions.bind(1, user_id);
  sessions.run();
  auto st = db_.prepare("DELETE FROM operators WHERE user_id = ?1");
  st.bind(1, user_id);
  st.run();
  return db_.changes() == 1;
}

std::optional<OperatorRecord> Operators::by_user(std::string_view user_id) {
  auto st = db_.prepare("SELECT " AUTHD_OPERATOR_COLUMNS " FROM operators WHERE user_id = ?1");
  st.bind(1, user_id);
  if (!st.step()) return std::nullopt;
  return read_operator(st);
}

std::vector<OperatorRecord> Operators::list() {
  auto st =
      db_.prepare("SELECT " AUTHD_OPERATOR_COLUMNS " FROM operators ORDER BY granted_at, user_id");
  std::vector<OperatorRecord> grants;
  while (st.step()) grants.push_back(read_operator(st));
  return grants;
}

void Operators::insert_session(const ConsoleSessionRecord& session) {
  auto st = db_.prepare("INSERT INTO console_sessions (" AUTHD_CONSOLE_SESSION_COLUMNS
                        ") VALUES (?1, ?2, ?3, ?4, ?5)");
  st.bind(1, session.token_digest).bind(2, session.user_id).bind(3, session.created_at);
  st.bind(4, session.idle_until).bind(5, session.expires_at);
  st.run();
}

std::optional<ConsoleSessionRecord> Operators::session_by_digest(const Sha256Digest& digest) {
  auto st = db_.prepare("SELECT " AUTHD_CONSOLE_SESSION_COLUMNS
                        " FROM console_sessions WHERE token_digest = ?1");
  st.bind(1, digest);
  if (!st.step()) return std::nullopt;
  return ConsoleSessionRecord{st.digest(0), st.text(1), st.integer(2), st.integer(3),
                              st.integer(4)};
}

void Operators::touch_session(const Sha256Digest& digest, Millis idle_until) {
  auto st = db_.prepare("UPDATE console_sessions SET idle_until = ?2 WHERE token_digest = ?1");
  st.bind(1, digest).bind(2, idle_until);
  st.run();
}

bool Operators::end_session(const Sha256Digest& digest) {
  auto st = db_.prepare("DELETE FROM console_sessions WHERE token_digest = ?1");
  st.bind(1, digest);
  st.run();
  return db_.changes() == 1;
}

std::int64_t Operators::prune(Millis now) {
  auto st = db_.prepare(
      AUTHD_PRUNE("console_sessions", "token_digest", "idle_until <= ?1 OR expires_at <= ?1"));
  st.bind(1, now);
  st.run();
  return db_.changes();
}

#undef AUTHD_OPERATOR_COLUMNS
#undef AUTHD_CONSOLE_SESSION_COLUMNS

}  // namespace authd::sqlite
