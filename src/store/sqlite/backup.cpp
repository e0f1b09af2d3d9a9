#include "store/sqlite/backup.hpp"

#include <fcntl.h>
#include <sqlite3.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <memory>
#include <optional>
#include <system_error>

#include "store/sqlite/connection.hpp"  // fail()
#include "store/store.hpp"

namespace authd::sqlite {
namespace {

struct CloseDb {
  void operator()(sqlite3* db) const { sqlite3_close_v2(db); }
};
using Db = std::unique_ptr<sqlite3, CloseDb>;

Db open(const std::string& path, int flags, const std::string& what) {
  sqlite3* raw = nullptr;
  int rc = sqlite3_open_v2(path.c_str(), &raw, flags, nullptr);
  Db db(raw);
  if (rc != SQLITE_OK) fail(raw, rc, what + " " + path);
  sqlite3_extended_result_codes(raw, 1);
  sqlite3_busy_timeout(raw, 10000);
  return db;
}

void exec(sqlite3* db, const char* sql) {
  char* error = nullptr;
  int rc = sqlite3_exec(db, sql, nullptr, nullptr, &error);
  if (rc != SQLITE_OK) {
    std::string message = error ? error : sqlite3_errstr(rc);
    sqlite3_free(error);
    throw StoreError(std::string(sql) + ": " + message);
  }
}

void sync_path(const std::string& path, int flags) {
  int fd = ::open(path.c_str(), flags | O_CLOEXEC);
  if (fd < 0)
    throw StoreError("cannot open " + path + ": " + std::generic_category().message(errno));
  int rc = ::fsync(fd);
  ::close(fd);
  if (rc != 0)
    throw StoreError("cannot sync " + path + ": " + std::generic_category().message(errno));
}

// Removes the temporary copy (and any journal SQLite left) unless disarmed.
struct RemoveOnFailure {
  std::string path;
  bool armed = true;
  ~RemoveOnFailure() {
    if (!armed) return;
    for (const char* suffix : {"", "-journal", "-wal", "-shm"}) ::unlink((path + suffix).c_str());
  }
};

}  // namespace

void backup_database(const std::string& source, const std::string& destination, int pages_per_step,
                     const std::function<void(const BackupProgress&)>& progress) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (fs::exists(destination, ec) && fs::equivalent(source, destination, ec))
    throw StoreError("the backup would overwrite the database itself");

  // The source must exist: never create an empty database by mistake.
  Db src = open(source, SQLITE_OPEN_READWRITE, "cannot open database");

  // The temporary file, created 0600 before SQLite opens it.
  std::string temporary = destination + ".tmp-XXXXXX";
  int fd = ::mkstemp(temporary.data());
  if (fd < 0)
    throw StoreError("cannot create a file beside " + destination + ": " +
                     std::generic_category().message(errno));
  ::fchmod(fd, 0600);
  ::close(fd);
  RemoveOnFailure cleanup{temporary};

  {
    Db dst = open(temporary, SQLITE_OPEN_READWRITE, "cannot open backup file");
    // One read transaction around the whole copy: every chunk comes from
    // the same snapshot, and the copy never restarts because the server
    // wrote in between (in WAL mode, readers and the writer do not block
    // each other).
    exec(src.get(), "BEGIN");
    exec(src.get(), "SELECT count(*) FROM sqlite_schema");  // starts the snapshot
    sqlite3_backup* backup = sqlite3_backup_init(dst.get(), "main", src.get(), "main");
    if (backup == nullptr) fail(dst.get(), SQLITE_ERROR, "cannot start the backup");
    // The destination is ours alone, so SQLITE_BUSY/LOCKED should not
    // happen; if something else holds a lock on it anyway, retry for a
    // bounded time (kBusyLimit without progress), then give up with a clear
    // message rather than hang `authd backup`.
    constexpr auto kBusyLimit = std::chrono::seconds(10);
    std::optional<std::chrono::steady_clock::time_point> busy_since;
    bool busy_too_long = false;
    int rc = SQLITE_OK;
    while (true) {
      // A busy step may itself wait for the busy time-out: count from its start.
      auto step_started = std::chrono::steady_clock::now();
      rc = sqlite3_backup_step(backup, pages_per_step);
      if (progress) {
        progress({sqlite3_backup_pagecount(backup) - sqlite3_backup_remaining(backup),
                  sqlite3_backup_pagecount(backup)});
      }
      if (rc == SQLITE_OK) {
        busy_since.reset();
        continue;
      }
      if (rc == SQLITE_BUSY || rc == SQLITE_LOCKED) {
        auto now = std::chrono::steady_clock::now();
        if (!busy_since) busy_since = step_started;
        if (now - *busy_since >= kBusyLimit) {
          busy_too_long = true;
          break;
        }
        sqlite3_sleep(50);
        continue;
      }
      break;
    }
    sqlite3_backup_finish(backup);
    exec(src.get(), "COMMIT");
    if (busy_too_long) {
      throw StoreError(
          "backup failed: the database or the backup file stayed locked by another process for "
          "more than 10 s (nothing was written to " +
          destination + ")");
    }
    if (rc != SQLITE_DONE) fail(dst.get(), rc, "backup failed");

    // The copy keeps the source's WAL mode in its header; leave it as one
    // self-contained file (no -wal beside it) and check it.
    exec(dst.get(), "PRAGMA wal_checkpoint(TRUNCATE)");
    sqlite3_stmt* check = nullptr;
    if (sqlite3_prepare_v2(dst.get(), "PRAGMA quick_check", -1, &check, nullptr) != SQLITE_OK)
      fail(dst.get(), SQLITE_ERROR, "cannot check the backup");
    std::string verdict;
    if (sqlite3_step(check) == SQLITE_ROW)
      verdict = reinterpret_cast<const char*>(sqlite3_column_text(check, 0));
    sqlite3_finalize(check);
    if (verdict != "ok") throw StoreError("the backup failed its check: " + verdict);
  }  // closed: SQLite removes its -wal and -shm files

  sync_path(temporary, O_RDONLY);
  if (::rename(temporary.c_str(), destination.c_str()) != 0)
    throw StoreError("cannot rename the backup to " + destination + ": " +
                     std::generic_category().message(errno));
  cleanup.armed = false;
  std::string directory = fs::path(destination).parent_path().string();
  sync_path(directory.empty() ? "." : directory, O_RDONLY | O_DIRECTORY);
}

}  // namespace authd::sqlite
