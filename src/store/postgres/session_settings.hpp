// The limits and settings authd gives each PostgreSQL session (or, behind
// a transaction pooler, each transaction): statement and lock timeouts
// under the client's deadline, BYTEA in hex, read-only by default, one plan
// per statement. Connection sends them; the reasons are in the .cpp.
#pragma once

#include <chrono>

#include "store/postgres/params.hpp"

namespace authd::postgres {

// Right after connecting: set_config(..., false), for the session. $1 the
// statement and idle-in-transaction timeout, $2 the lock timeout.
extern const char* const kSessionSettings;
// After BEGIN behind a transaction pooler: set_config(..., true), for the
// transaction only. Same parameters.
extern const char* const kTransactionSettings;

// The parameters of both for a client deadline of `timeout`.
Params session_limits(std::chrono::milliseconds timeout);

}  // namespace authd::postgres
