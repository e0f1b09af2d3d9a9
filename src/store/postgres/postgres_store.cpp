#include "store/postgres/postgres_store.hpp"

#include <algorithm>
#include <exception>
#include <utility>

#include "core/log.hpp"
#include "store/migrations.hpp"
#include "store/postgres/connection.hpp"
#include "store/postgres/read_pipeline.hpp"
#include "store/postgres/transaction.hpp"

namespace authd::postgres {
namespace {

// Refused without trying, right after a failed connect: the failure that
// started it was logged (a client retrying in a loop would otherwise flood
// the log during an outage).
class StillDownError : public AlreadyReported {
 public:
  StillDownError() : AlreadyReported("database unreachable a moment ago; not retrying yet") {}
};

void rollback_quietly(Connection& connection) {
  if (!connection.usable()) return;  // the server rolls back a dropped session
  try {
    connection.execute("ROLLBACK");
  } catch (const StoreError&) {
    // The connection is marked unusable and will be dropped.
  }
}

}  // namespace

// A connection taken from the pool; goes back (or is dropped, when broken)
// at the end of its scope.
class PostgresStore::Lease {
 public:
  Lease(PostgresStore& store, std::unique_ptr<Connection> connection, bool reused)
      : store_(store), connection_(std::move(connection)), reused_(reused) {}
  Lease(Lease&& other) noexcept
      : store_(other.store_), connection_(std::move(other.connection_)), reused_(other.reused_) {}
  Lease(const Lease&) = delete;
  Lease& operator=(const Lease&) = delete;
  ~Lease() {
    if (connection_) store_.release(std::move(connection_));
  }
  void give_back() {
    if (connection_) store_.release(std::move(connection_));
  }
  Connection& operator*() { return *connection_; }
  Connection* operator->() { return connection_.get(); }
  bool reused() const { return reused_; }

 private:
  PostgresStore& store_;
  std::unique_ptr<Connection> connection_;
  bool reused_;
};

PostgresStore::PostgresStore(std::string url, std::size_t pool_size,
                             std::chrono::milliseconds timeout, bool transaction_pooler)
    : url_(std::move(url)),
      pool_size_(std::max<std::size_t>(pool_size, 1)),
      timeout_(timeout),
      transaction_pooler_(transaction_pooler),
      hosts_(url_) {
  acquire(Clock::now() + timeout_);  // connect once now; the lease returns it to the pool
}

PostgresStore::~PostgresStore() = default;

std::unique_ptr<Connection> PostgresStore::connect(Clock::time_point deadline) {
  auto give_slot_back = [this](bool timed_out) {
    std::lock_guard lock(mutex_);
    --open_;
    // A refused connection costs nothing to try again; a server that does
    // not answer would cost every request its whole deadline.
    if (timed_out) reconnect_after_ = Clock::now() + std::chrono::milliseconds(250);
    available_.notify_one();
  };
  try {
    return connect_to_one_of(deadline);
  } catch (const TimedOutError&) {
    give_slot_back(true);
    throw;
  } catch (...) {
    give_slot_back(false);
    throw;
  }
}

// One host at a time (hosts.hpp): the one that connected last first, each
// within its own budget, so that a frozen host costs one budget and not the
// whole deadline. With one host, libpq's own handling and the deadline.
std::unique_ptr<Connection> PostgresStore::connect_to_one_of(Clock::time_point deadline) {
  ConnectSettings settings{timeout_, transaction_pooler_, {}};
  if (hosts_.size() == 1) return std::make_unique<Connection>(url_, settings, deadline);
  std::exception_ptr last;
  bool timed_out = false;
  for (std::size_t index : hosts_.order()) {
    if (Clock::now() >= deadline) break;
    settings.host = hosts_.settings(index);
    settings.host_index = index;
    try {
      auto connection = std::make_unique<Connection>(
          url_, settings, std::min(deadline, Clock::now() + hosts_.host_budget()));
      connection->set_deadline(deadline);
      hosts_.connected(index);
      return connection;
    } catch (const TimedOutError&) {
      timed_out = true;
      last = std::current_exception();
      hosts_.failed(index);
    } catch (const BusyError&) {
      last = std::current_exception();  // refused, or a standby: the next
      hosts_.failed(index);
    }
  }
  if (timed_out) throw TimedOutError("connect: no host answered in time");
  if (last) std::rethrow_exception(last);
  throw TimedOutError("connect: no time left to try a host");
}

PostgresStore::Lease PostgresStore::acquire(Clock::time_point deadline) {
  {
    std::unique_lock lock(mutex_);
    if (!available_.wait_until(lock, deadline,
                               [&] { return !idle_.empty() || open_ < pool_size_; }))
      throw TimedOutError("every database connection stayed in use");
    if (!idle_.empty()) {
      std::unique_ptr<Connection> connection = std::move(idle_.back());
      idle_.pop_back();
      connection->set_deadline(deadline);
      return Lease(*this, std::move(connection), true);
    }
    if (Clock::now() < reconnect_after_) throw StillDownError();
    ++open_;
  }
  return Lease(*this, connect(deadline), false);
}

void PostgresStore::release(std::unique_ptr<Connection> connection) {
  const bool left_the_primary = connection->timed_out() || connection->on_read_only_server();
  const std::size_t host = connection->host_index();
  {
    std::lock_guard lock(mutex_);
    if (connection->usable()) {
      idle_.push_back(std::move(connection));
    } else {
      --open_;
    }
    available_.notify_one();
  }
  // A server that stopped answering (frozen, or cut off with TCP still
  // waiting) holds the idle connections to it as well: dropped now, they
  // do not each cost a request its whole deadline; and the next connect
  // starts with another host, for one that accepts connections but whose
  // server no longer answers (a pooler in front of it) (interface.md 20.1).
  // The same for a server that answered read-only: behind a pooler that
  // still reports the old primary's parameters, libpq's read-write check
  // passes, and only another host can be the new primary.
  if (left_the_primary) {
    drop_idle();
    if (hosts_.size() > 1) hosts_.failed(host);
  }
}

void PostgresStore::drop_idle() {
  std::vector<std::unique_ptr<Connection>> dropped;  // closed outside the lock
  std::lock_guard lock(mutex_);
  open_ -= idle_.size();
  dropped.swap(idle_);
  available_.notify_all();
}

PostgresStore::Lease PostgresStore::begin(Mode mode, Clock::time_point deadline) {
  Lease connection = acquire(deadline);
  if (connection.reused() && !connection->still_open_while_idle()) {
    // The server restarted or dropped us while the connection was idle,
    // and the other idle ones went the same way. Nothing has run yet, so
    // start over on a fresh connection, after handing the dead one back
    // (a pool of one has no other slot).
    connection.give_back();
    drop_idle();
    Lease fresh = acquire(deadline);
    start(*fresh, mode);
    return fresh;
  }
  start(*connection, mode);
  return connection;
}

// A write transaction's BEGIN travels with its first statement. A read
// needs none: each statement of a read runs in a transaction of its own,
// which under READ COMMITTED sees what a BEGIN ... COMMIT around them would
// (each statement there takes a new snapshot too), one round trip each
// instead of three; the session's default_transaction_read_only, set once
// connected (connection.cpp), keeps them from writing, as BEGIN READ ONLY
// did.
void PostgresStore::start(Connection& connection, Mode mode) {
  if (mode == Mode::write) connection.begin_write();
}

// What a transaction that threw reports, logged once here; called inside
// a catch handler. An exception that is not the store's goes on to the
// caller.
StoreStatus PostgresStore::status_of_failure() {
  try {
    throw;
  } catch (const AlreadyReported& e) {
    log::debug("store_busy", {{"error", e.what()}});
    return StoreStatus::unavailable;
  } catch (const BusyError& e) {
    log::warn("store_busy", {{"error", e.what()}});
    return StoreStatus::unavailable;
  } catch (const StoreError& e) {
    log::error("store_error", {{"error", e.what()}});
    return StoreStatus::failed;
  }
}

StoreStatus PostgresStore::run(Mode mode, const std::function<void(Transaction&)>& work) {
  try {
    // One deadline for the whole transaction: waiting for a connection,
    // connecting, every statement and the COMMIT.
    Lease connection = begin(mode, Clock::now() + timeout_);
    const bool writing = mode == Mode::write;
    try {
      PostgresTransaction tx(*connection, writing);
      work(tx);
      // Durable when it returns (synchronous_commit).
      if (writing) connection->execute("COMMIT");
    } catch (...) {
      if (writing) rollback_quietly(*connection);
      throw;
    }
    return StoreStatus::ok;
  } catch (const StoreError&) {
    return status_of_failure();
  }
}

void PostgresStore::run_reads_together(std::span<TransactionUnit> units) {
  // One deadline for the whole turn, as for one transaction: a server that
  // stops answering holds the connection thread up once, not once for each
  // of its pipelines.
  const Clock::time_point deadline = Clock::now() + timeout_;
  // A connection thread's turn may gather hundreds of reads behind a flood:
  // pipelines of a bounded size keep their fibers' stacks in the thread's
  // cache (read_pipeline.cpp) and each batch's memory small.
  while (!units.empty()) {
    std::span<TransactionUnit> pipeline = units.first(std::min(units.size(), kMaxReadsPerPipeline));
    units = units.subspan(pipeline.size());
    if (Clock::now() < deadline) {
      run_reads_in_one_pipeline(pipeline, deadline);
    } else {
      log::debug("store_busy", {{"error", "reads: the turn's deadline has passed"}});
      for (TransactionUnit& unit : pipeline) unit.status = StoreStatus::unavailable;
    }
  }
}

void PostgresStore::run_reads_in_one_pipeline(std::span<TransactionUnit> units,
                                              Clock::time_point deadline) {
  try {
    Lease connection = begin(Mode::read, deadline);
    run_in_one_pipeline(*connection, units, false, [&connection](TransactionUnit& unit) {
      try {
        PostgresTransaction tx(*connection, false);
        (*unit.work)(tx);
        unit.status = StoreStatus::ok;
      } catch (const StoreError&) {
        unit.status = status_of_failure();
      } catch (...) {
        unit.status = StoreStatus::failed;
        unit.error = std::current_exception();
      }
    });
  } catch (const StoreError&) {
    // No connection for the batch: each read would have been refused alike.
    StoreStatus status = status_of_failure();
    for (TransactionUnit& unit : units) unit.status = status;
  }
}

// Group commit for the writes that take no lock another transaction could
// be waiting on while holding one of theirs (logout: its session's row;
// /forgot: the throttling keys it names, all locked first and in one
// order). All units run in one transaction, one COMMIT; a unit that
// throws, or a lock wait that deadlocks with another instance's batch,
// undoes the whole batch, and then each unit runs alone and gets its own
// outcome, taking its keys in the same order.
void PostgresStore::run_together(std::span<TransactionUnit> units) {
  if (units.size() > 1 && run_in_one_transaction(units)) return;
  for (TransactionUnit& unit : units) {
    const std::function<void(Transaction&)>* work = unit.work;
    const std::function<void(Transaction&)> locked_first = [&unit, work](Transaction& tx) {
      static_cast<PostgresTransaction&>(tx).lock_throttle_keys(unit.lock_keys);
      (*work)(tx);
    };
    if (!unit.lock_keys.empty()) unit.work = &locked_first;
    run_alone(unit);
    unit.work = work;
  }
}

bool PostgresStore::run_in_one_transaction(std::span<TransactionUnit> units) {
  try {
    Lease connection = begin(Mode::write, Clock::now() + timeout_);
    try {
      PostgresTransaction tx(*connection, true);
      std::vector<std::string> keys;
      for (const TransactionUnit& unit : units)
        keys.insert(keys.end(), unit.lock_keys.begin(), unit.lock_keys.end());
      // Every key first, in one order; sent ahead of the first statement.
      tx.lock_throttle_keys(keys);
      // The units' statements share the batch's round trips, in the units'
      // order; units that name the same key (one address's requests) count
      // it one after the other, each seeing the events of those before it
      // (shared_throttle.hpp).
      run_in_one_pipeline(*connection, units, true, [&tx](TransactionUnit& unit) {
        try {
          (*unit.work)(tx);
        } catch (...) {
          unit.error = std::current_exception();
        }
      });
      // A deadline that passed answers every unit unavailable (below);
      // any other failure undoes the batch, then each unit runs alone.
      if (std::exception_ptr failed = take_first_cause(units)) std::rethrow_exception(failed);
      connection->execute("COMMIT");
    } catch (...) {
      rollback_quietly(*connection);
      throw;
    }
  } catch (const StillDownError&) {
    for (TransactionUnit& unit : units) unit.status = StoreStatus::unavailable;
    return true;  // each alone would be refused the same way
  } catch (const TimedOutError& e) {
    // The database did not answer in time: alone, each would wait again.
    log::warn("store_busy", {{"error", e.what()}});
    for (TransactionUnit& unit : units) unit.status = StoreStatus::unavailable;
    return true;
  } catch (const std::exception& e) {
    log::debug("store_batch_undone", {{"error", e.what()}, {"units", units.size()}});
    return false;
  } catch (...) {
    return false;
  }
  for (TransactionUnit& unit : units) unit.status = StoreStatus::ok;
  return true;
}

int PostgresStore::migrate() {
  Lease connection = acquire(Clock::now() + timeout_);
  // A migration may wait for another instance's, and a future one may
  // build an index on a large table: no request-sized limits here.
  connection->set_deadline(Clock::now() + std::chrono::minutes(30));
  connection->execute("BEGIN READ WRITE");
  connection->execute("SET LOCAL statement_timeout = 0");
  connection->execute("SET LOCAL lock_timeout = 0");
  int version = 0;
  std::vector<const Migration*> applied;  // logged once committed
  try {
    // Instances starting together migrate one after the other; the lock
    // comes before the table exists, so it is an advisory one.
    connection->execute("SELECT pg_advisory_xact_lock(hashtextextended('authd migrations', 0))");
    connection->execute_script(
        "CREATE TABLE IF NOT EXISTS schema_migrations ("
        " version INTEGER PRIMARY KEY, description TEXT NOT NULL, applied_at BIGINT NOT NULL)");
    version = static_cast<int>(
        connection->run("SELECT coalesce(max(version), 0) FROM schema_migrations").integer(0, 0));
    for (const Migration& m : migrations()) {
      if (m.version <= version) continue;
      connection->execute_script(m.postgres_sql);
      Params params;
      params.integer(m.version).text(m.description).integer(now_millis());
      connection->run(
          "INSERT INTO schema_migrations (version, description, applied_at) VALUES ($1, $2, $3)",
          params);
      version = m.version;
      applied.push_back(&m);
    }
    connection->execute("COMMIT");
  } catch (...) {
    rollback_quietly(*connection);
    throw;
  }
  log_applied(applied);
  return version;
}

}  // namespace authd::postgres
