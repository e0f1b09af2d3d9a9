// The storage interface: a Store runs transactions (store/transaction.hpp,
// the areas of rows the domain reads and writes) and migrates its schema.
// Two backends implement it, store/sqlite and store/postgres, with prepared
// statements and bound parameters only. A transaction either commits
// durably as a whole or not at all. How transactions are scheduled onto
// threads, and batched on SQLite, is store/database.hpp's.
#pragma once

#include <exception>
#include <functional>
#include <span>
#include <stdexcept>
#include <string>

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

// One transaction's work in a batch, and its outcome.
struct TransactionUnit {
  const std::function<void(Transaction&)>* work = nullptr;
  // The throttling keys `work` counts (ThrottleStore::event_times in a
  // write): a store that shares a transaction between units locks them all
  // first, in one order, so that two batches cannot deadlock. A unit may
  // count and add throttling events only for the keys it names. A store
  // may interleave the units' statements (PostgreSQL pipelines them, each
  // unit's in its order, the units' in theirs), but units that name the
  // same key use it one after the other, in the batch's order, each seeing
  // what those before it wrote there (ThrottleStore::done_with lets the
  // next one go before this one has finished). Otherwise a unit may depend
  // on what another unit of its batch writes only through statements that
  // reach the server in the units' order (two logouts of one token).
  std::span<const std::string> lock_keys;
  StoreStatus status = StoreStatus::failed;
  std::exception_ptr error;  // an exception other than StoreError, for the caller
};

class Store {
 public:
  enum class Mode { read, write };
  virtual ~Store() = default;

  // Runs `work` in one transaction on the calling thread and commits it
  // durably (or rolls back if `work` throws). Thread-safe.
  virtual StoreStatus run(Mode mode, const std::function<void(Transaction&)>& work) = 0;

  // Write transactions that may share one transaction and its COMMIT
  // (Database::write_together): each unit's outcome is set. A store that
  // does not batch runs each in its own transaction. One that does may run a
  // unit's work twice: in the shared transaction, then alone when the
  // shared one failed as a whole; so the work may only assign its results.
  virtual void run_together(std::span<TransactionUnit> units) {
    for (TransactionUnit& unit : units) run_alone(unit);
  }

  // Read transactions queued together (Database::read on a store that is
  // not a BatchedStore): each unit's outcome is set. A store may run them
  // side by side on one connection (PostgreSQL's read pipeline), each
  // still in transactions of its own.
  virtual void run_reads_together(std::span<TransactionUnit> units) {
    for (TransactionUnit& unit : units) run_alone(unit, Mode::read);
  }

  // Applies pending schema migrations; returns the schema version.
  virtual int migrate() = 0;

  // True when the database answers a trivial query (a read transaction).
  virtual bool healthy() {
    return run(Mode::read, [](Transaction& tx) { tx.outbox().pending_count(); }) == StoreStatus::ok;
  }

 protected:
  void run_alone(TransactionUnit& unit, Mode mode = Mode::write) {
    try {
      unit.status = run(mode, *unit.work);
    } catch (...) {
      unit.status = StoreStatus::failed;
      unit.error = std::current_exception();
    }
  }
};

}  // namespace authd
