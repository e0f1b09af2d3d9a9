#include "store/sqlite/sqlite_store.hpp"

#include <fcntl.h>
#include <sqlite3.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <system_error>

#include "core/log.hpp"
#include "store/migrations.hpp"
#include "store/sqlite/checkpointer.hpp"
#include "store/sqlite/connection.hpp"
#include "store/sqlite/transaction.hpp"

namespace authd::sqlite {
namespace {

// SQLite creates the file with the process umask; an authentication database
// must not be world-readable, so create it 0600 first. SQLite gives the -wal
// and -shm files the same mode as the database file.
void create_private_file(const std::string& path) {
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd >= 0) {
    ::close(fd);
  } else if (errno != EEXIST) {
    throw StoreError("cannot create database file " + path + ": " +
                     std::generic_category().message(errno));
  }
}

// An existing file keeps its mode: authd does not change what an operator
// set (a backup group's read access, say), but says when other users can
// reach the hashes and token digests, in it and in its -wal and -shm files.
void warn_if_not_private(const std::string& path) {
  struct stat info {};
  if (::stat(path.c_str(), &info) != 0 || (info.st_mode & 077) == 0) return;
  char mode[8];
  std::snprintf(mode, sizeof mode, "%04o", static_cast<unsigned>(info.st_mode & 07777));
  log::warn("database_file_not_private",
            {{"path", path},
             {"mode", mode},
             {"reason",
              "other users can read or write the database (password hashes, token digests): "
              "chmod 600 it and its -wal and -shm files"}});
}

}  // namespace

SqliteStore::SqliteStore(std::string path, std::size_t read_cache_kib) : path_(std::move(path)) {
  readers_.cache_kib = read_cache_kib;
  create_private_file(path_);
  warn_if_not_private(path_);
  checkpointer_ = std::make_unique<Checkpointer>(path_);
  release(general_, acquire(general_));  // open once now, so that a bad path fails at start
}

SqliteStore::~SqliteStore() = default;

std::unique_ptr<Connection> SqliteStore::acquire(Pool& pool) {
  {
    std::lock_guard lock(mutex_);
    if (!pool.idle.empty()) {
      auto connection = std::move(pool.idle.back());
      pool.idle.pop_back();
      return connection;
    }
  }
  auto connection = std::make_unique<Connection>(path_, pool.cache_kib);
  checkpointer_->attach(connection->handle());
  return connection;
}

std::uint64_t SqliteStore::background_checkpoints() const { return checkpointer_->completed(); }

std::int64_t SqliteStore::read_cache_misses() {
  std::lock_guard lock(mutex_);
  std::int64_t misses = 0;
  for (const auto& connection : readers_.idle) {
    int current = 0, highwater = 0;
    sqlite3_db_status(connection->handle(), SQLITE_DBSTATUS_CACHE_MISS, &current, &highwater, 0);
    misses += current;
  }
  return misses;
}

void SqliteStore::release(Pool& pool, std::unique_ptr<Connection> connection) {
  // A connection whose COMMIT and ROLLBACK both failed may still hold its
  // transaction, and with it an old snapshot: closed, never reused.
  if (connection->in_transaction()) return;
  std::lock_guard lock(mutex_);
  pool.idle.push_back(std::move(connection));
}

StoreStatus SqliteStore::run(Mode mode, const std::function<void(Transaction&)>& work) {
  std::unique_ptr<Connection> connection;
  try {
    connection = acquire(general_);
  } catch (const StoreError& e) {
    log::error("store_error", {{"error", e.what()}});
    return StoreStatus::unavailable;
  }
  StoreStatus status = StoreStatus::ok;
  try {
    // IMMEDIATE takes the write lock up front, so a transaction that reads
    // then writes never fails half-way on a lock upgrade. BEGIN and COMMIT
    // are prepared once per connection like every other statement: parsed
    // on each transaction they cost a tenth of a GET /me.
    connection->prepare(mode == Mode::write ? "BEGIN IMMEDIATE" : "BEGIN").run();
    try {
      SqliteTransaction tx(*connection);
      work(tx);
      connection->prepare("COMMIT").run();
    } catch (...) {
      rollback_quietly(*connection);
      throw;
    }
  } catch (const BusyError& e) {
    log::warn("store_busy", {{"error", e.what()}});
    status = StoreStatus::unavailable;
  } catch (const StoreError& e) {
    log::error("store_error", {{"error", e.what()}});
    status = StoreStatus::failed;
  }
  release(general_, std::move(connection));
  return status;
}

namespace {

// Runs one unit of a batch, then `then_sql` if given: its status, or its
// exception for its own caller. False when it failed, for the caller to undo.
bool run_unit(Connection& connection, BatchedStore::Unit& unit, const char* then_sql = nullptr) {
  try {
    SqliteTransaction tx(connection);
    (*unit.work)(tx);
    if (then_sql != nullptr) connection.prepare(then_sql).run();
    unit.status = StoreStatus::ok;
    return true;
  } catch (const BusyError& e) {
    log::warn("store_busy", {{"error", e.what()}});
    unit.status = StoreStatus::unavailable;
  } catch (const StoreError& e) {
    log::error("store_error", {{"error", e.what()}});
    unit.status = StoreStatus::failed;
  } catch (...) {
    unit.error = std::current_exception();
  }
  return false;
}

}  // namespace

// A connection for a batch, or none, with every unit marked unavailable.
std::unique_ptr<Connection> SqliteStore::acquire_for(Pool& pool, std::span<Unit> units) {
  try {
    return acquire(pool);
  } catch (const StoreError& e) {
    log::error("store_error", {{"error", e.what()}});
    for (Unit& unit : units) unit.status = StoreStatus::unavailable;
    return nullptr;
  }
}

// One read transaction for the batch: SQLite takes its WAL read lock (two
// fcntl calls) and checks the file's size (fstat) once, not once per read.
// Every read of the batch was queued before BEGIN, so each sees every
// commit that had returned before it was asked for.
void SqliteStore::run_reads(std::span<Unit> units) {
  if (units.empty()) return;
  std::unique_ptr<Connection> connection = acquire_for(readers_, units);
  if (!connection) return;
  try {
    connection->prepare("BEGIN").run();
  } catch (const StoreError& e) {
    // Without the batch's transaction the reads would not share a snapshot
    // begun after they were asked for: none runs.
    log::error("store_error", {{"error", e.what()}});
    for (Unit& unit : units) unit.status = StoreStatus::unavailable;
    release(readers_, std::move(connection));
    return;
  }
  for (Unit& unit : units) run_unit(*connection, unit);
  if (connection->in_transaction()) {
    try {
      connection->prepare("COMMIT").run();
    } catch (const StoreError&) {
      rollback_quietly(*connection);
    }
  }
  release(readers_, std::move(connection));
}

namespace {

// Undoes one unit of a group commit, or throws when SQLite has already
// rolled the whole transaction back (an I/O error, a full disk).
void undo_unit(Connection& connection) {
  if (!connection.in_transaction()) throw StoreError("transaction rolled back by SQLite");
  connection.prepare("ROLLBACK TO unit").run();
  connection.prepare("RELEASE unit").run();
}

}  // namespace

void SqliteStore::run_writes(std::span<Unit> units) {
  if (units.empty()) return;
  std::unique_ptr<Connection> connection = acquire_for(general_, units);
  if (!connection) return;
  StoreStatus batch = StoreStatus::ok;
  std::size_t ran = 0;  // units whose work has run: their fate is the COMMIT's
  try {
    connection->prepare("BEGIN IMMEDIATE").run();
    for (Unit& unit : units) {
      connection->prepare("SAVEPOINT unit").run();
      if (!run_unit(*connection, unit, "RELEASE unit")) undo_unit(*connection);
      ++ran;
    }
    connection->prepare("COMMIT").run();
  } catch (const BusyError& e) {
    log::warn("store_busy", {{"error", e.what()}});
    batch = StoreStatus::unavailable;
  } catch (const StoreError& e) {
    log::error("store_error", {{"error", e.what()}});
    batch = StoreStatus::failed;
  }
  if (batch != StoreStatus::ok) {
    // Nothing of this batch is durable: no unit may report success.
    rollback_quietly(*connection);
    for (std::size_t i = 0; i < units.size(); ++i) {
      if (i >= ran || units[i].status == StoreStatus::ok) units[i].status = batch;
    }
  }
  release(general_, std::move(connection));
}

int SqliteStore::migrate() {
  auto connection = acquire(general_);
  connection->execute("BEGIN IMMEDIATE");
  int version = 0;
  std::vector<const Migration*> applied;  // logged once committed
  try {
    connection->execute(
        "CREATE TABLE IF NOT EXISTS schema_migrations ("
        " version INTEGER PRIMARY KEY, description TEXT NOT NULL, applied_at INTEGER NOT NULL)");
    {
      auto st = connection->prepare("SELECT coalesce(max(version), 0) FROM schema_migrations");
      st.step();
      version = static_cast<int>(st.integer(0));
    }
    // One instance owns an SQLite file, so a newer schema means a downgrade,
    // and an older release would misread it (since migration 2 it would
    // accept logged-out tokens). PostgreSQL has no such check: there the
    // previous release keeps running during a rolling upgrade.
    if (int known = migrations().back().version; version > known)
      throw StoreError("the database is at schema version " + std::to_string(version) +
                       ", newer than this authd's " + std::to_string(known) +
                       ": downgrading is not supported; restore the backup taken before the "
                       "upgrade");
    for (const Migration& m : migrations()) {
      if (m.version <= version) continue;
      connection->execute(m.sqlite_sql);
      auto st = connection->prepare(
          "INSERT INTO schema_migrations (version, description, applied_at) VALUES (?1, ?2, ?3)");
      st.bind(1, static_cast<std::int64_t>(m.version)).bind(2, m.description).bind(3, now_millis());
      st.run();
      version = m.version;
      applied.push_back(&m);
    }
    connection->execute("COMMIT");
  } catch (...) {
    rollback_quietly(*connection);
    throw;
  }
  release(general_, std::move(connection));
  log_applied(applied);
  return version;
}

}  // namespace authd::sqlite
