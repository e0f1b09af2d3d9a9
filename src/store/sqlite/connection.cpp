#include "store/sqlite/connection.hpp"

#include <sqlite3.h>

#include <cstring>
#include <string>

#include "store/store.hpp"

namespace authd::sqlite {

void fail(sqlite3* db, int code, std::string_view what) {
  std::string message(what);
  message += ": ";
  message += db ? sqlite3_errmsg(db) : sqlite3_errstr(code);
  int primary = code & 0xFF;
  if (primary == SQLITE_BUSY || primary == SQLITE_LOCKED) throw BusyError(message);
  throw StoreError(message);
}

Statement::~Statement() {
  sqlite3_reset(stmt_);
  sqlite3_clear_bindings(stmt_);
}

Statement& Statement::bind(int index, std::string_view text) {
  int rc =
      sqlite3_bind_text(stmt_, index, text.data(), static_cast<int>(text.size()), SQLITE_TRANSIENT);
  if (rc != SQLITE_OK) fail(db_, rc, "bind");
  return *this;
}

Statement& Statement::bind(int index, std::int64_t value) {
  int rc = sqlite3_bind_int64(stmt_, index, value);
  if (rc != SQLITE_OK) fail(db_, rc, "bind");
  return *this;
}

Statement& Statement::bind(int index, const std::optional<std::string>& text) {
  if (text) return bind(index, std::string_view(*text));
  int rc = sqlite3_bind_null(stmt_, index);
  if (rc != SQLITE_OK) fail(db_, rc, "bind");
  return *this;
}

Statement& Statement::bind(int index, const std::optional<std::int64_t>& value) {
  if (value) return bind(index, *value);
  int rc = sqlite3_bind_null(stmt_, index);
  if (rc != SQLITE_OK) fail(db_, rc, "bind");
  return *this;
}

Statement& Statement::bind(int index, const Sha256Digest& digest) {
  int rc = sqlite3_bind_blob(stmt_, index, digest.data(), static_cast<int>(digest.size()),
                             SQLITE_TRANSIENT);
  if (rc != SQLITE_OK) fail(db_, rc, "bind");
  return *this;
}

Statement& Statement::bind(int index, const std::optional<Sha256Digest>& digest) {
  if (digest) return bind(index, *digest);
  int rc = sqlite3_bind_null(stmt_, index);
  if (rc != SQLITE_OK) fail(db_, rc, "bind");
  return *this;
}

bool Statement::step() {
  int rc = sqlite3_step(stmt_);
  if (rc == SQLITE_ROW) return true;
  if (rc == SQLITE_DONE) return false;
  fail(db_, rc, "step");
}

void Statement::run() {
  while (step()) {
  }
}

std::string Statement::text(int column) const {
  auto* data = reinterpret_cast<const char*>(sqlite3_column_text(stmt_, column));
  return data ? std::string(data, static_cast<std::size_t>(sqlite3_column_bytes(stmt_, column)))
              : std::string();
}

std::optional<std::string> Statement::optional_text(int column) const {
  if (sqlite3_column_type(stmt_, column) == SQLITE_NULL) return std::nullopt;
  return text(column);
}

std::int64_t Statement::integer(int column) const { return sqlite3_column_int64(stmt_, column); }

std::optional<std::int64_t> Statement::optional_integer(int column) const {
  if (sqlite3_column_type(stmt_, column) == SQLITE_NULL) return std::nullopt;
  return integer(column);
}

std::optional<Sha256Digest> Statement::optional_digest(int column) const {
  if (sqlite3_column_type(stmt_, column) == SQLITE_NULL) return std::nullopt;
  return digest(column);
}

Sha256Digest Statement::digest(int column) const {
  Sha256Digest out{};
  const void* blob = sqlite3_column_blob(stmt_, column);
  if (blob == nullptr || sqlite3_column_bytes(stmt_, column) != static_cast<int>(out.size()))
    throw StoreError("digest column has the wrong size");
  std::memcpy(out.data(), blob, out.size());
  return out;
}

namespace {

// Process-wide settings, before SQLite initialises itself (the first open).
// Without memory statistics, sqlite3_malloc takes no process-wide mutex:
// authd never reads the statistics, and the database threads, the writer
// and the checkpointer would otherwise contend for that one lock.
void configure_sqlite_once() {
  static const bool configured = [] {
    sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
    return true;
  }();
  (void)configured;
}

}  // namespace

Connection::Connection(const std::string& path, std::size_t cache_kib) {
  configure_sqlite_once();
  int rc =
      sqlite3_open_v2(path.c_str(), &db_,
                      SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, nullptr);
  if (rc != SQLITE_OK) {
    std::string message = db_ ? sqlite3_errmsg(db_) : sqlite3_errstr(rc);
    sqlite3_close_v2(db_);
    db_ = nullptr;
    throw StoreError("cannot open database: " + message);
  }
  sqlite3_extended_result_codes(db_, 1);
  sqlite3_busy_timeout(db_, 5000);
  // WAL lets readers run beside the writer; FULL makes every commit durable
  // before authd answers (interface.md 8.3).
  execute("PRAGMA journal_mode = WAL");
  execute("PRAGMA synchronous = FULL");
  // When a commit rewinds the WAL, a file longer than this is cut back to
  // it: SQLite never shrinks the file otherwise. 64 MiB is the most the
  // checkpoint policy lets the WAL reach (checkpointer.hpp), so a writer
  // under load never pays for growing a cut file again; the idle truncation
  // and the timed checkpoint keep the file small otherwise
  // (docs/guide/operations.md, "The SQLite WAL").
  execute("PRAGMA journal_size_limit = 67108864");
  execute("PRAGMA foreign_keys = ON");
  if (cache_kib != 0) {
    // Negative: a size in KiB rather than in pages. The pages are allocated
    // as they are read, so the cache costs only what has been read.
    std::string pragma = "PRAGMA cache_size = -" + std::to_string(cache_kib);
    execute(pragma.c_str());
  }
}

Connection::~Connection() {
  for (auto& [sql, stmt] : cache_) sqlite3_finalize(stmt);
  sqlite3_close_v2(db_);
}

Statement Connection::prepare(const char* sql) {
  auto it = cache_.find(sql);
  if (it == cache_.end()) {
    sqlite3_stmt* stmt = nullptr;
    int rc = sqlite3_prepare_v3(db_, sql, -1, SQLITE_PREPARE_PERSISTENT, &stmt, nullptr);
    if (rc != SQLITE_OK) fail(db_, rc, "prepare");
    it = cache_.emplace(sql, stmt).first;
  }
  return Statement(db_, it->second);
}

void Connection::execute(const char* sql) {
  char* error = nullptr;
  int rc = sqlite3_exec(db_, sql, nullptr, nullptr, &error);
  if (rc != SQLITE_OK) {
    std::string message = error ? error : sqlite3_errstr(rc);
    sqlite3_free(error);
    int primary = rc & 0xFF;
    if (primary == SQLITE_BUSY || primary == SQLITE_LOCKED) throw BusyError(message);
    throw StoreError(message);
  }
}

std::int64_t Connection::last_insert_id() const { return sqlite3_last_insert_rowid(db_); }

int Connection::changes() const { return sqlite3_changes(db_); }

bool Connection::in_transaction() const { return sqlite3_get_autocommit(db_) == 0; }

void rollback_quietly(Connection& connection) {
  if (!connection.in_transaction()) return;  // SQLite rolled it back by itself
  try {
    connection.prepare("ROLLBACK").run();
  } catch (const StoreError&) {
    // Nothing more can be undone; the pool closes a connection still in a
    // transaction instead of reusing it.
  }
}

}  // namespace authd::sqlite
