// How much of a table one transaction of the pruner removes (interface.md
// 8.2). A backlog (the throttle events of an attack, a mass expiry of
// sessions) goes in transactions of at most this many rows of a table, one
// after another, so that no transaction holds its rows, or SQLite's single
// writer, for longer than a small delete takes, nor outlasts the database's
// deadline on every pass.
#pragma once

#include <cstdint>

#define AUTHD_ROWS_PRUNED_PER_TABLE 5000
#define AUTHD_PRUNE_TEXT_(n) #n
#define AUTHD_PRUNE_TEXT(n) AUTHD_PRUNE_TEXT_(n)
// For the statements: "5000", and " LIMIT 5000".
#define AUTHD_ROWS_PRUNED_PER_TABLE_TEXT AUTHD_PRUNE_TEXT(AUTHD_ROWS_PRUNED_PER_TABLE)
#define AUTHD_PRUNE_LIMIT " LIMIT " AUTHD_ROWS_PRUNED_PER_TABLE_TEXT

namespace authd {

// A table's step that removed this many rows may have left some: the pass
// runs it again in another transaction (PrunePass, store/pruning.hpp).
inline constexpr std::int64_t kRowsPrunedPerTable = AUTHD_ROWS_PRUNED_PER_TABLE;

}  // namespace authd
