// What a PostgreSQL error's SQLSTATE says to authd: retry later (503),
// the session is gone, or the server has become a standby. Connection::fail
// turns them into the store's exceptions.
#pragma once

#include <string_view>

namespace authd::postgres {

// "Not now" rather than "wrong": the request gets a 503 and may be retried.
bool is_transient(std::string_view state);
// A standby now, after a failover: 25006 to a write, 0A000 to BEGIN READ
// WRITE. A new connection finds the primary; this one never will.
bool is_read_only_server(std::string_view state);
// The connection is lost (08) or the server is shutting down or starting (57P).
bool ends_the_session(std::string_view state);

}  // namespace authd::postgres
