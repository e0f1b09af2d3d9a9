// The versioned schema, one list for every backend. Each migration has one
// version and description and its SQL in each backend's dialect, so both
// stores always stand at the same schema version with the same meaning. A
// migration is never edited once released: a change is a new entry at the
// end, written for both backends.
#pragma once

#include <span>

namespace authd {

struct Migration {
  int version;
  const char* description;
  const char* sqlite_sql;
  const char* postgres_sql;
};

std::span<const Migration> migrations();

// Migrations 10 to 16 (migrations_10_on.cpp) and 17 and later
// (migrations_17_on.cpp); migrations() lists them after 1 to 9.
std::span<const Migration> migrations_from_10();
std::span<const Migration> migrations_from_17();

// Migrations 18 and later (migrations_18_on.cpp), after those.
std::span<const Migration> migrations_from_18();

// Logs one migration_applied event per migration, once they are committed.
void log_applied(std::span<const Migration* const> applied);

}  // namespace authd
