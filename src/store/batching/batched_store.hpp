// What a backend offers when its transactions are worth running in batches:
// SQLite, which has one writer and an expensive durable commit (one fsync
// per COMMIT), and whose read transactions cost more to open (file-lock
// system calls) than to run. Database (store/database.hpp) finds it on the
// store it is given and then hands it the server's concurrent writes and
// reads in batches; a store without it (PostgreSQL) gets one transaction
// per call of Store::run.
#pragma once

#include <exception>
#include <functional>
#include <span>

#include "store/store.hpp"

namespace authd {

class BatchedStore {
 public:
  virtual ~BatchedStore() = default;

  using Unit = TransactionUnit;

  // Group commit: each unit runs in order as if in its own write
  // transaction and is undone alone if it throws, but all share one durable
  // commit, and none is reported done before that commit has returned.
  virtual void run_writes(std::span<Unit> units) = 0;

  // Group reads: all units in one read transaction, begun after the last
  // of them was queued. Work run here must not write: it is not undone alone.
  virtual void run_reads(std::span<Unit> units) = 0;
};

}  // namespace authd
