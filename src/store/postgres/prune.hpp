// Housekeeping's DELETEs on PostgreSQL (store/pruning.hpp, every
// --prune-interval on each instance).
#pragma once

#include "store/prune_limit.hpp"

// At most AUTHD_ROWS_PRUNED_PER_TABLE rows of `table` where `condition`
// holds, except those another transaction holds just then (FOR UPDATE SKIP
// LOCKED), which the next pass removes. Housekeeping deletes expired rows of
// many tables, and of many users, in one transaction: waiting for a row that
// a writer holds (an erasure, a client's deletion, a rotation, another
// instance's pass) while holding rows that writer deletes next met it in a
// deadlock (interface.md 8.2). A pass that never waits meets nobody.
#define AUTHD_PRUNE(table, condition)                                    \
  "DELETE FROM " table " WHERE ctid = ANY(ARRAY(SELECT ctid FROM " table \
  " WHERE " condition AUTHD_PRUNE_LIMIT " FOR UPDATE SKIP LOCKED))"
