// Moves SQLite's WAL checkpoints off the commit path.
//
// By default the connection that commits past 1,000 WAL frames copies them
// back into the database file (and fsyncs it) before its COMMIT returns. On
// the group-commit writer that stalls every waiting logout and login behind
// the copy: 25-35% of logout throughput and its p99
// (docs/design/performance-choices.md#wal-checkpoints-off-the-commit-path).
// Here automatic checkpoints are off; commits only wake this thread, which runs
// PASSIVE checkpoints on a connection of its own (PASSIVE never blocks readers
// or the writer, and it syncs the WAL before and the database after the copy,
// as the automatic one does). When, is CheckpointPolicy's to say. A long read
// transaction (`authd backup`) still pins the WAL, as it does with SQLite's own
// checkpoints.
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

// When to checkpoint, from the WAL's length after each commit. Pure
// arithmetic, so that it can be tested frame by frame.
//
// - Every kBackgroundFrames new frames, a background checkpoint copies what
//   has been added since the last one. Not after every commit: under a
//   steady writer a page is rewritten many times between two checkpoints,
//   and each checkpoint copies it once and fsyncs the database once
//   (docs/design/performance-choices.md#wal-checkpoints-off-the-commit-path).
// - SQLite rewinds the WAL only when a write transaction begins with every
//   frame copied, which a writer that never pauses rarely allows. So past
//   kRewindFrames every commit asks for a background checkpoint, which then
//   has little to copy each time, and once what is left is at most
//   kSmallRemainder frames and the background thread is idle, the
//   committing connection copies that rest itself: a short stall, after
//   which its next transaction can rewind the WAL (unless a reader is still
//   on an older snapshot; then the background thread goes first again).
// - Past kForegroundFrames the committing connection checkpoints whatever
//   is left, as SQLite would have done, which keeps the WAL file near 64 MiB
//   at most (16,000 frames of 4 KiB pages).
// - A slow, steady writer (a hundred commits a second) would take a minute
//   to reach kBackgroundFrames and never pause long enough for the idle
//   truncation below: so once a second at most, a WAL of kTimedFrames or
//   more gets a background checkpoint too, after which the next write
//   rewinds it. Under load the frame steps come far more often than that,
//   so this adds nothing there (docs/guide/operations.md, "The SQLite WAL").
class CheckpointPolicy {
 public:
  static constexpr int kBackgroundFrames = 4000;  // SQLite's own default is 1,000
  static constexpr int kRewindFrames = 12000;
  static constexpr int kSmallRemainder = 500;
  static constexpr int kForegroundFrames = 16000;
  static constexpr int kTimedFrames = 256;
  static constexpr std::int64_t kTimedIntervalMs = 1000;

  enum class Action { none, background, foreground };

  // After a commit that left `frames` frames in the WAL, with `copied` of
  // them already checkpointed (as far as the last checkpoint knew) and the
  // background thread busy or not, at `now_ms` on a steady clock (0: no
  // clock, only the frame rules apply).
  Action after_commit(int frames, int copied, bool background_busy, std::int64_t now_ms = 0);

 private:
  int next_background_ = kBackgroundFrames;
  int last_frames_ = 0;
  std::int64_t last_background_ms_ = 0;
};

// Also truncates the WAL file to nothing once commits have paused for
// kIdleTruncateMs: SQLite reuses a WAL file from its start but never
// shrinks it, so without this a burst leaves a large file behind for good.
// The same truncation runs shortly after start (a WAL left by a crash or a
// full disk) and is retried every kIdleTruncateMs while it fails (a disk
// still full), so that freeing space is enough to get the space back.
class Checkpointer {
 public:
  static constexpr std::int64_t kIdleTruncateMs = 1000;

  explicit Checkpointer(const std::string& path);
  Checkpointer(const Checkpointer&) = delete;
  Checkpointer& operator=(const Checkpointer&) = delete;
  ~Checkpointer();

  // Replaces SQLite's automatic checkpoint on `db` with this one. The
  // Checkpointer must outlive the connection.
  void attach(sqlite3* db);

  // Checkpoints that ran to completion on the background thread.
  std::uint64_t completed() const;
  // Times the WAL file was truncated to nothing.
  std::uint64_t truncations() const;

 private:
  static int on_commit(void* self, sqlite3* db, const char* schema, int frames);
  void loop();
  // The idle truncation, when due: commits have paused and the WAL may
  // hold frames. Runs on the background thread, without the lock.
  void truncate_if_idle(sqlite3* db);

  std::unique_ptr<Connection> connection_;
  mutable std::mutex mutex_;
  std::condition_variable wake_;
  CheckpointPolicy policy_;
  bool requested_ = false;
  bool running_ = false;  // the background thread is checkpointing
  int copied_ = 0;        // frames the last background checkpoint left copied; 0: unknown
  bool stopping_ = false;
  std::uint64_t completed_ = 0;
  std::int64_t last_commit_ms_ = 0;
  bool wal_may_hold_frames_ = true;  // until a truncation succeeds; set by every commit
  std::uint64_t truncations_ = 0;
  bool truncation_failing_ = false;  // logged once, until one succeeds
  std::thread thread_;               // last: starts once the rest is constructed
};

}  // namespace authd::sqlite
