// The embedded store: one SQLite file in WAL mode, one connection per
// database thread, every statement prepared with bound parameters.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "store/batching/batched_store.hpp"
#include "store/store.hpp"

namespace authd::sqlite {

class Checkpointer;
class Connection;

class SqliteStore final : public Store, public BatchedStore {
 public:
  // Creates the file (mode 0600) when it does not exist yet.
  // `read_cache_kib`: the page cache of each group reader's connection
  // (run_reads), 0 for SQLite's default of 2,000 KiB.
  explicit SqliteStore(std::string path, std::size_t read_cache_kib = 0);
  ~SqliteStore() override;

  StoreStatus run(Mode mode, const std::function<void(Transaction&)>& work) override;
  // One BEGIN IMMEDIATE ... COMMIT (one fsync) for the whole batch, each
  // unit inside its own SAVEPOINT.
  void run_writes(std::span<Unit> units) override;
  // One BEGIN ... COMMIT for the whole batch, on a connection of the
  // readers' pool.
  void run_reads(std::span<Unit> units) override;
  int migrate() override;

  // WAL checkpoints that the background thread ran to completion
  // (checkpointer.hpp).
  std::uint64_t background_checkpoints() const;

  // For tests: pages the idle group readers' connections had to read from
  // the file (SQLite's page-cache misses since each was opened), which shows
  // whether the reads are served from those connections' own cache.
  std::int64_t read_cache_misses();

 private:
  // Idle connections, kept apart by use. The group readers' connections
  // have the larger page cache, and only reads fill it: in WAL mode it stays
  // valid from one read transaction to the next until another connection
  // commits, so the pages of the sessions and users being checked stay
  // there instead of being read again from the file.
  struct Pool {
    std::size_t cache_kib = 0;  // 0: SQLite's default
    std::vector<std::unique_ptr<Connection>> idle;
  };

  std::unique_ptr<Connection> acquire(Pool& pool);
  std::unique_ptr<Connection> acquire_for(Pool& pool, std::span<Unit> units);
  void release(Pool& pool, std::unique_ptr<Connection> connection);

  std::string path_;
  std::unique_ptr<Checkpointer> checkpointer_;  // outlives every pooled connection
  std::mutex mutex_;
  Pool general_;  // writes, single reads (health check, /metrics), migrations
  Pool readers_;  // the group readers' (run_reads)
};

}  // namespace authd::sqlite
