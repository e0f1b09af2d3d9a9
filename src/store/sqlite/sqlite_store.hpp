// The embedded store: one SQLite file in WAL mode, one connection per
// database thread, every statement prepared with bound parameters.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "store/store.hpp"

namespace authd::sqlite {

class Checkpointer;
class Connection;

class SqliteStore final : public Store {
 public:
  // Creates the file (mode 0600) when it does not exist yet.
  explicit SqliteStore(std::string path);
  ~SqliteStore() override;

  StoreStatus run(Mode mode, const std::function<void(Transaction&)>& work) override;
  // One BEGIN IMMEDIATE ... COMMIT (one fsync) for the whole batch, each
  // unit inside its own SAVEPOINT.
  bool group_commit() const override { return true; }
  void run_writes(std::span<BatchUnit> units) override;
  bool group_reads() const override { return true; }
  void run_reads(std::span<BatchUnit> units) override;
  int migrate() override;

  // WAL checkpoints that the background thread ran to completion
  // (checkpointer.hpp).
  std::uint64_t background_checkpoints() const;

 private:
  std::unique_ptr<Connection> acquire();
  std::unique_ptr<Connection> acquire_for(std::span<BatchUnit> units);
  void release(std::unique_ptr<Connection> connection);

  std::string path_;
  std::unique_ptr<Checkpointer> checkpointer_;  // outlives every pooled connection
  std::mutex mutex_;
  std::vector<std::unique_ptr<Connection>> idle_;
};

}  // namespace authd::sqlite
