// Housekeeping's DELETEs on SQLite (store/pruning.hpp, every
// --prune-interval).
#pragma once

#include "store/prune_limit.hpp"

// At most AUTHD_ROWS_PRUNED_PER_TABLE rows of `table` where `condition`
// holds, chosen by the table's primary key `key`: several tables have no
// rowid, and DELETE ... LIMIT needs a build option of the library
// (SQLITE_ENABLE_UPDATE_DELETE_LIMIT) that a build may leave out.
#define AUTHD_PRUNE(table, key, condition)                             \
  "DELETE FROM " table " WHERE " key " IN (SELECT " key " FROM " table \
  " WHERE " condition AUTHD_PRUNE_LIMIT ")"
