// The storage interface: a Store runs transactions (store/transaction.hpp,
// the areas of rows the domain reads and writes) and migrates its schema.
// Two backends implement it, store/sqlite and store/postgres, with prepared
// statements and bound parameters only. A transaction either commits
// durably as a whole or not at all. How transactions are scheduled onto
// threads, and batched on SQLite, is store/database.hpp's.
#pragma once

#include <functional>
#include <stdexcept>

#include "store/transaction.hpp"

namespace authd {

// Thrown by store implementations only; `Store::run` turns it into a
// StoreStatus, so it never crosses into the domain's callers.
class StoreError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The database is there but could not be reached in time (locked, down).
class BusyError : public StoreError {
 public:
  using StoreError::StoreError;
};

enum class StoreStatus {
  ok,
  unavailable,  // the database cannot be reached or is locked for too long
  failed,       // anything else: a bug or a corrupt database
};

class Store {
 public:
  enum class Mode { read, write };
  virtual ~Store() = default;

  // Runs `work` in one transaction on the calling thread and commits it
  // durably (or rolls back if `work` throws). Thread-safe.
  virtual StoreStatus run(Mode mode, const std::function<void(Transaction&)>& work) = 0;

  // Applies pending schema migrations; returns the schema version.
  virtual int migrate() = 0;

  // True when the database answers a trivial query (a read transaction).
  virtual bool healthy() {
    return run(Mode::read, [](Transaction& tx) { tx.outbox().pending_count(); }) == StoreStatus::ok;
  }
};

}  // namespace authd
