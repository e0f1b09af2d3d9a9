#include "store/postgres/sqlstate.hpp"

namespace authd::postgres {

// SQLSTATEs that say "not now" rather than "wrong": the request gets a 503
// and may be retried. Classes 08 (connection), 53 (resources) and 57P
// (server shutting down or starting), serialization failures and
// deadlocks, a statement cancelled by statement_timeout, a lock not granted
// within lock_timeout, a session ended by idle_in_transaction_session_timeout,
// a read-only server (a standby after a failover: 25006, or 0A000 to BEGIN
// READ WRITE), and a prepared statement
// that does not exist (26000): authd runs only names it prepared, so that is
// a statement another read of the pipeline prepared ahead of this one, whose
// PREPARE failed (a lock on its table not granted in time), and that read
// reports why (Connection::send_prepared).
bool is_transient(std::string_view state) {
  return state.starts_with("08") || state.starts_with("53") || state.starts_with("57P") ||
         state == "40001" || state == "40P01" || state == "57014" || state == "55P03" ||
         state == "25P03" || state == "25006" || state == "0A000" || state == "26000";
}

bool is_read_only_server(std::string_view state) { return state == "25006" || state == "0A000"; }

bool ends_the_session(std::string_view state) {
  return state.starts_with("08") || state.starts_with("57P");
}

}  // namespace authd::postgres
