// Moves SQLite's WAL checkpoints off the commit path.
//
// By default the connection that commits past 1,000 WAL frames copies them
// back into the database file (and fsyncs it) before its COMMIT returns. On
// the group-commit writer that stalls every waiting logout and login behind
// the copy: 25-35% of logout throughput and its p99 (docs/performance.md).
// Here automatic checkpoints are off; a commit past kBackgroundFrames only
// wakes this thread, which runs a PASSIVE checkpoint on a connection of its
// own (PASSIVE never blocks readers or the writer, and it syncs the WAL
// before and the database after the copy, as the automatic one does).
//
// A writer that never pauses can starve a background checkpoint: SQLite
// rewinds the WAL only once every frame has been copied. So past
// kForegroundFrames the committing connection checkpoints itself, as SQLite
// would have done, which keeps the WAL file near 64 MiB at most (16,000
// frames of 4 KiB pages). A long read transaction (`authd backup`) still
// pins the WAL, as it does with SQLite's own checkpoints.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

struct sqlite3;

namespace authd::sqlite {

class Connection;

class Checkpointer {
 public:
  static constexpr int kBackgroundFrames = 4000;  // SQLite's own default is 1,000
  static constexpr int kForegroundFrames = 16000;

  explicit Checkpointer(const std::string& path);
  Checkpointer(const Checkpointer&) = delete;
  Checkpointer& operator=(const Checkpointer&) = delete;
  ~Checkpointer();

  // Replaces SQLite's automatic checkpoint on `db` with this one. The
  // Checkpointer must outlive the connection.
  void attach(sqlite3* db);

  // Checkpoints that ran to completion on the background thread.
  std::uint64_t completed() const;

 private:
  static int on_commit(void* self, sqlite3* db, const char* schema, int frames);
  void loop();

  std::unique_ptr<Connection> connection_;
  mutable std::mutex mutex_;
  std::condition_variable wake_;
  bool requested_ = false;
  bool stopping_ = false;
  std::uint64_t completed_ = 0;
  std::thread thread_;  // last: starts once the rest is constructed
};

}  // namespace authd::sqlite
