#include "store/sqlite/sqlite_store.hpp"

#include <fcntl.h>
#include <sqlite3.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <limits>
#include <system_error>

#include "core/log.hpp"
#include "crypto/hash_kind.hpp"
#include "store/migrations.hpp"
#include "store/sqlite/checkpointer.hpp"
#include "store/sqlite/connection.hpp"

namespace authd::sqlite {
namespace {

// A macro so that it concatenates into string literals: the connection
// caches statements by the literal's address.
#define AUTHD_USER_COLUMNS                                                        \
  "id, email, password_hash, phone, photo_url, display_name, email_verified_at, " \
  "phone_verified_at, disabled, created_at, updated_at"

// GET /me's and logout's lookup: the session's user, then its expiry. The
// subquery names only user_id and expires_at, so the user's columns need no
// qualifier; the session's primary key drives the join.
#define AUTHD_SESSION_USER_SQL                                              \
  "SELECT " AUTHD_USER_COLUMNS                                              \
  ", expires_at FROM users JOIN (SELECT user_id, expires_at FROM sessions " \
  "WHERE token_digest = ?1 AND revoked_at IS NULL) AS s ON users.id = s.user_id"
constexpr int kSessionExpiresColumn = 11;  // after the user's 11 columns

UserRecord read_user(const Statement& row) {
  UserRecord user;
  user.id = row.text(0);
  user.email = row.text(1);
  user.password_hash = row.optional_text(2);
  user.phone = row.optional_text(3);
  user.photo_url = row.optional_text(4);
  user.display_name = row.optional_text(5);
  user.email_verified_at = row.optional_integer(6);
  user.phone_verified_at = row.optional_integer(7);
  user.disabled = row.integer(8) != 0;
  user.created_at = row.integer(9);
  user.updated_at = row.integer(10);
  return user;
}

class SqliteTransaction final : public Transaction {
 public:
  explicit SqliteTransaction(Connection& db) : db_(db) {}

  std::optional<UserRecord> user_by_email(std::string_view email) override {
    auto st = db_.prepare("SELECT " AUTHD_USER_COLUMNS " FROM users WHERE email = ?1");
    st.bind(1, email);
    if (!st.step()) return std::nullopt;
    return read_user(st);
  }

  std::optional<UserRecord> user_by_id(std::string_view id) override {
    auto st = db_.prepare("SELECT " AUTHD_USER_COLUMNS " FROM users WHERE id = ?1");
    st.bind(1, id);
    if (!st.step()) return std::nullopt;
    return read_user(st);
  }

  bool insert_user(const UserRecord& u) override {
    auto st = db_.prepare(
        "INSERT INTO users (" AUTHD_USER_COLUMNS
        ") "
        "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11) ON CONFLICT (email) DO NOTHING");
    bind_user(st, u);
    st.run();
    if (db_.changes() != 1) return false;
    if (u.password_hash) record_hash_kind(*u.password_hash);
    return true;
  }

  void update_user(const UserRecord& u) override {
    auto st = db_.prepare(
        "UPDATE users SET email = ?2, password_hash = ?3, phone = ?4, photo_url = ?5, "
        "display_name = ?6, email_verified_at = ?7, phone_verified_at = ?8, disabled = ?9, "
        "updated_at = ?10 WHERE id = ?1");
    st.bind(1, u.id);
    bind_user_fields(st, u);
    st.bind(10, u.updated_at);
    st.run();
    if (u.password_hash) record_hash_kind(*u.password_hash);
  }

  void replace_password_hash(std::string_view user_id, std::string_view phc) override {
    auto st = db_.prepare("UPDATE users SET password_hash = ?2 WHERE id = ?1");
    st.bind(1, user_id).bind(2, phc);
    st.run();
    record_hash_kind(phc);
  }

  std::vector<std::string> password_hash_kinds() override {
    auto st = db_.prepare("SELECT kind FROM password_hash_kinds ORDER BY kind");
    std::vector<std::string> kinds;
    while (st.step()) kinds.push_back(st.text(0));
    return kinds;
  }

  std::vector<Millis> event_times(std::string_view key, Millis after, int most) override {
    // Plan: SEARCH throttle_events USING COVERING INDEX throttle_events_by_key
    // (key=? AND at>?), walked backwards: no sort, `most` rows at most.
    auto st = db_.prepare(
        "SELECT at FROM throttle_events WHERE key = ?1 AND at > ?2 ORDER BY at DESC LIMIT ?3");
    st.bind(1, key).bind(2, after).bind(3, static_cast<std::int64_t>(most));
    std::vector<Millis> times;
    while (st.step()) times.push_back(st.integer(0));
    std::reverse(times.begin(), times.end());
    return times;
  }

  std::int64_t insert_event(std::string_view key, Millis at) override {
    auto st = db_.prepare("INSERT INTO throttle_events (key, at) VALUES (?1, ?2)");
    st.bind(1, key).bind(2, at);
    st.run();
    return db_.last_insert_id();
  }

  void delete_event(std::int64_t event_id) override {
    auto st = db_.prepare("DELETE FROM throttle_events WHERE id = ?1");
    st.bind(1, event_id);
    st.run();
  }

  void delete_events(std::string_view key) override {
    auto st = db_.prepare("DELETE FROM throttle_events WHERE key = ?1");
    st.bind(1, key);
    st.run();
  }

  void insert_session(const SessionRecord& s) override {
    auto st = db_.prepare(
        "INSERT INTO sessions (token_digest, user_id, created_at, expires_at) "
        "VALUES (?1, ?2, ?3, ?4)");
    st.bind(1, s.token_digest).bind(2, s.user_id).bind(3, s.created_at).bind(4, s.expires_at);
    st.run();
  }

  std::optional<SessionUser> session_user(const Sha256Digest& digest) override {
    auto st = db_.prepare(AUTHD_SESSION_USER_SQL);
    st.bind(1, digest);
    if (!st.step()) return std::nullopt;
    return SessionUser{read_user(st), st.integer(kSessionExpiresColumn)};
  }

  // A mark, not a DELETE: it rewrites one b-tree page where a DELETE also
  // rewrites a page of each of the two session indexes, and the single writer
  // appends every dirty page to the WAL (docs/performance.md, section 10).
  bool revoke_session(const Sha256Digest& digest, Millis now) override {
    auto st = db_.prepare(
        "UPDATE sessions SET revoked_at = ?2 WHERE token_digest = ?1 AND revoked_at IS NULL");
    st.bind(1, digest).bind(2, now);
    st.run();
    return db_.changes() == 1;
  }

  void delete_sessions_of_user(std::string_view user_id) override {
    auto st = db_.prepare("DELETE FROM sessions WHERE user_id = ?1");
    st.bind(1, user_id);
    st.run();
  }

  // Unexpired minus unexpired-and-revoked: both counts read an index alone
  // (sessions_by_expiry, sessions_revoked); a filter on revoked_at would
  // visit every row (7 ms against 120 ms for 170,000 sessions).
  std::int64_t live_session_count(Millis now) override {
    auto st = db_.prepare(
        "SELECT (SELECT count(*) FROM sessions WHERE expires_at > ?1)"
        " - (SELECT count(*) FROM sessions WHERE revoked_at IS NOT NULL AND expires_at > ?1)");
    st.bind(1, now);
    st.step();
    return st.integer(0);
  }

  std::int64_t enqueue_mail(const OutboxRecord& m) override {
    auto st = db_.prepare(
        "INSERT INTO outbox (kind, user_id, email, created_at, attempts, next_attempt_at) "
        "VALUES (?1, ?2, ?3, ?4, ?5, ?6)");
    st.bind(1, m.kind).bind(2, m.user_id).bind(3, m.email).bind(4, m.created_at);
    st.bind(5, static_cast<std::int64_t>(m.attempts)).bind(6, m.next_attempt_at);
    st.run();
    return db_.last_insert_id();
  }

  std::optional<OutboxRecord> claim_due_mail(Millis now, Millis lease_until) override {
    return claim_mail(now, now, lease_until);
  }

  std::optional<OutboxRecord> claim_pending_mail(Millis now, Millis lease_until) override {
    return claim_mail(now, std::numeric_limits<Millis>::max(), lease_until);
  }

  // The unsent, unclaimed mail due at `due_by` with the earliest next attempt.
  std::optional<OutboxRecord> claim_mail(Millis now, Millis due_by, Millis lease_until) {
    // The write transaction holds SQLite's single write lock, so no other
    // worker can claim the same row between the SELECT and the UPDATE.
    std::optional<OutboxRecord> mail;
    {
      auto st = db_.prepare(
          "SELECT id, kind, user_id, email, created_at, attempts, next_attempt_at FROM outbox "
          "WHERE sent_at IS NULL AND next_attempt_at <= ?2 "
          "AND (claimed_until IS NULL OR claimed_until <= ?1) "
          "ORDER BY next_attempt_at, id LIMIT 1");
      st.bind(1, now).bind(2, due_by);
      if (!st.step()) return std::nullopt;
      mail = OutboxRecord{st.integer(0), st.text(1),    st.text(2),
                          st.text(3),    st.integer(4), static_cast<int>(st.integer(5)),
                          st.integer(6)};
    }
    auto st = db_.prepare("UPDATE outbox SET claimed_until = ?2 WHERE id = ?1");
    st.bind(1, mail->id).bind(2, lease_until);
    st.run();
    return mail;
  }

  bool mark_mail_sent(std::int64_t mail_id, Millis at, Millis claimed_until) override {
    auto st = db_.prepare(
        "UPDATE outbox SET sent_at = ?2, claimed_until = NULL, last_error = NULL "
        "WHERE id = ?1 AND claimed_until = ?3 AND sent_at IS NULL");
    st.bind(1, mail_id).bind(2, at).bind(3, claimed_until);
    st.run();
    return db_.changes() == 1;
  }

  void reschedule_mail(std::int64_t mail_id, int attempts, Millis next_attempt_at,
                       std::string_view last_error) override {
    auto st = db_.prepare(
        "UPDATE outbox SET attempts = ?2, next_attempt_at = ?3, claimed_until = NULL, "
        "last_error = ?4 WHERE id = ?1");
    st.bind(1, mail_id).bind(2, static_cast<std::int64_t>(attempts)).bind(3, next_attempt_at);
    st.bind(4, last_error);
    st.run();
  }

  void delete_mail(std::int64_t mail_id) override {
    auto st = db_.prepare("DELETE FROM outbox WHERE id = ?1");
    st.bind(1, mail_id);
    st.run();
  }

  std::int64_t pending_mail_count() override {
    auto st = db_.prepare("SELECT count(*) FROM outbox WHERE sent_at IS NULL");
    st.step();
    return st.integer(0);
  }

  void replace_reset_token(const ResetTokenRecord& t) override {
    delete_reset_tokens_of_user(t.user_id);
    auto st = db_.prepare(
        "INSERT INTO reset_tokens (token_digest, user_id, created_at, expires_at) "
        "VALUES (?1, ?2, ?3, ?4)");
    st.bind(1, t.token_digest).bind(2, t.user_id).bind(3, t.created_at).bind(4, t.expires_at);
    st.run();
  }

  std::optional<ResetTokenRecord> reset_token_by_digest(const Sha256Digest& digest) override {
    auto st = db_.prepare(
        "SELECT token_digest, user_id, created_at, expires_at FROM reset_tokens "
        "WHERE token_digest = ?1");
    st.bind(1, digest);
    if (!st.step()) return std::nullopt;
    return ResetTokenRecord{st.digest(0), st.text(1), st.integer(2), st.integer(3)};
  }

  void delete_reset_tokens_of_user(std::string_view user_id) override {
    auto st = db_.prepare("DELETE FROM reset_tokens WHERE user_id = ?1");
    st.bind(1, user_id);
    st.run();
  }

  std::int64_t prune(Millis now, Millis event_horizon, Millis sent_mail_horizon) override {
    const std::pair<const char*, Millis> deletions[] = {
        {"DELETE FROM sessions WHERE expires_at <= ?1", now},
        {"DELETE FROM reset_tokens WHERE expires_at <= ?1", now},
        {"DELETE FROM throttle_events WHERE at <= ?1", event_horizon},
        {"DELETE FROM outbox WHERE sent_at IS NOT NULL AND sent_at <= ?1", sent_mail_horizon},
    };
    std::int64_t removed = 0;
    for (const auto& [sql, horizon] : deletions) {
      auto st = db_.prepare(sql);
      st.bind(1, horizon);
      st.run();
      removed += db_.changes();
    }
    return removed;
  }

 private:
  // One statement that changes nothing when the kind is listed already.
  void record_hash_kind(std::string_view phc) {
    std::optional<std::string> kind = password_hash_kind(phc);
    if (!kind) return;
    auto st = db_.prepare(
        "INSERT INTO password_hash_kinds (kind) VALUES (?1) ON CONFLICT (kind) DO NOTHING");
    st.bind(1, *kind);
    st.run();
  }

  static void bind_user(Statement& st, const UserRecord& u) {
    st.bind(1, u.id);
    bind_user_fields(st, u);
    st.bind(10, u.created_at).bind(11, u.updated_at);
  }

  // Parameters 2 to 9: the columns that an update may change.
  static void bind_user_fields(Statement& st, const UserRecord& u) {
    st.bind(2, u.email).bind(3, u.password_hash).bind(4, u.phone);
    st.bind(5, u.photo_url).bind(6, u.display_name).bind(7, u.email_verified_at);
    st.bind(8, u.phone_verified_at).bind(9, static_cast<std::int64_t>(u.disabled ? 1 : 0));
  }

  Connection& db_;
};

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
      try {
        connection->prepare("ROLLBACK").run();
      } catch (const StoreError&) {
        // SQLite may have rolled back already; nothing more to undo.
      }
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
bool run_unit(Connection& connection, Store::BatchUnit& unit, const char* then_sql = nullptr) {
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
std::unique_ptr<Connection> SqliteStore::acquire_for(Pool& pool, std::span<BatchUnit> units) {
  try {
    return acquire(pool);
  } catch (const StoreError& e) {
    log::error("store_error", {{"error", e.what()}});
    for (BatchUnit& unit : units) unit.status = StoreStatus::unavailable;
    return nullptr;
  }
}

// One read transaction for the batch: SQLite takes its WAL read lock (two
// fcntl calls) and checks the file's size (fstat) once, not once per read.
// Every read of the batch was queued before BEGIN, so each sees every
// commit that had returned before it was asked for.
void SqliteStore::run_reads(std::span<BatchUnit> units) {
  if (units.empty()) return;
  std::unique_ptr<Connection> connection = acquire_for(readers_, units);
  if (!connection) return;
  try {
    connection->prepare("BEGIN").run();
  } catch (const StoreError& e) {
    // Without the batch's transaction the reads would not share a snapshot
    // begun after they were asked for: none runs.
    log::error("store_error", {{"error", e.what()}});
    for (BatchUnit& unit : units) unit.status = StoreStatus::unavailable;
    release(readers_, std::move(connection));
    return;
  }
  for (BatchUnit& unit : units) run_unit(*connection, unit);
  if (connection->in_transaction()) {
    try {
      connection->prepare("COMMIT").run();
    } catch (const StoreError&) {
      try {
        connection->prepare("ROLLBACK").run();
      } catch (const StoreError&) {
        // SQLite may have rolled back already; nothing more to undo.
      }
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

void SqliteStore::run_writes(std::span<BatchUnit> units) {
  if (units.empty()) return;
  std::unique_ptr<Connection> connection = acquire_for(general_, units);
  if (!connection) return;
  StoreStatus batch = StoreStatus::ok;
  std::size_t ran = 0;  // units whose work has run: their fate is the COMMIT's
  try {
    connection->prepare("BEGIN IMMEDIATE").run();
    for (BatchUnit& unit : units) {
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
    if (connection->in_transaction()) {
      try {
        connection->prepare("ROLLBACK").run();
      } catch (const StoreError&) {
        // SQLite may have rolled back already; nothing more to undo.
      }
    }
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
    connection->execute("ROLLBACK");
    throw;
  }
  release(general_, std::move(connection));
  log_applied(applied);
  return version;
}

}  // namespace authd::sqlite

#undef AUTHD_SESSION_USER_SQL  // the two stores spell parameters differently
