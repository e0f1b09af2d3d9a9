#include "store/sqlite/checkpointer.hpp"

#include <sqlite3.h>

#include <chrono>
#include <utility>

#include "core/log.hpp"
#include "store/sqlite/connection.hpp"

namespace authd::sqlite {
namespace {

std::int64_t steady_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

}  // namespace

Checkpointer::Checkpointer(const std::string& path)
    : connection_(std::make_unique<Connection>(path)), thread_([this] { loop(); }) {}

Checkpointer::~Checkpointer() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_one();
  thread_.join();
}

void Checkpointer::attach(sqlite3* db) { sqlite3_wal_hook(db, &Checkpointer::on_commit, this); }

std::uint64_t Checkpointer::completed() const {
  std::lock_guard lock(mutex_);
  return completed_;
}

std::uint64_t Checkpointer::truncations() const {
  std::lock_guard lock(mutex_);
  return truncations_;
}

CheckpointPolicy::Action CheckpointPolicy::after_commit(int frames, int copied,
                                                        bool background_busy, std::int64_t now_ms) {
  // A shorter WAL than at the last commit was rewound. (Commits reach the
  // hook in order: in `serve` every write runs on the one writer thread.)
  if (frames < last_frames_) next_background_ = kBackgroundFrames;
  last_frames_ = frames;
  if (frames >= kForegroundFrames) return Action::foreground;
  if (frames >= kRewindFrames) {
    // `copied` may be from before a rewind (larger than `frames`): then
    // nothing is known of the rest, and the background thread goes first.
    bool small_rest = copied <= frames && frames - copied <= kSmallRemainder;
    if (small_rest && !background_busy) return Action::foreground;
    return Action::background;
  }
  if (frames >= next_background_) {
    next_background_ = frames + kBackgroundFrames;
    last_background_ms_ = now_ms;
    return Action::background;
  }
  if (now_ms != 0 && frames >= kTimedFrames && now_ms - last_background_ms_ >= kTimedIntervalMs) {
    last_background_ms_ = now_ms;
    return Action::background;
  }
  return Action::none;
}

// Runs in the committing thread, after its COMMIT is durable, with `frames`
// the WAL's length.
int Checkpointer::on_commit(void* self, sqlite3* db, const char* schema, int frames) {
  auto* checkpointer = static_cast<Checkpointer*>(self);
  CheckpointPolicy::Action action;
  {
    std::lock_guard lock(checkpointer->mutex_);
    std::int64_t now = steady_ms();
    checkpointer->last_commit_ms_ = now;
    checkpointer->wal_may_hold_frames_ = true;
    action = checkpointer->policy_.after_commit(frames, checkpointer->copied_,
                                                checkpointer->running_, now);
    if (action == CheckpointPolicy::Action::background) checkpointer->requested_ = true;
    // What this copy leaves is not recorded: if a reader still on an older
    // snapshot keeps the WAL from rewinding, the background thread measures
    // the rest again before the committer copies once more.
    if (action == CheckpointPolicy::Action::foreground) checkpointer->copied_ = 0;
  }
  if (action == CheckpointPolicy::Action::foreground) {
    // SQLITE_BUSY while the background checkpoint runs: it is copying anyway.
    int rc = sqlite3_wal_checkpoint_v2(db, schema, SQLITE_CHECKPOINT_PASSIVE, nullptr, nullptr);
    if (rc != SQLITE_OK && (rc & 0xFF) != SQLITE_BUSY)
      log::warn("checkpoint_failed", {{"error", sqlite3_errmsg(db)}});
  } else if (action == CheckpointPolicy::Action::background) {
    checkpointer->wake_.notify_one();
  }
  return SQLITE_OK;
}

void Checkpointer::loop() {
  sqlite3* db = connection_->handle();
  for (;;) {
    {
      std::unique_lock lock(mutex_);
      bool woken = wake_.wait_for(lock, std::chrono::milliseconds(kIdleTruncateMs),
                                  [this] { return requested_ || stopping_; });
      if (stopping_) return;
      if (!woken) {
        lock.unlock();
        truncate_if_idle(db);
        continue;
      }
      requested_ = false;
      running_ = true;
    }
    int wal_frames = 0;
    int copied = 0;
    int rc =
        sqlite3_wal_checkpoint_v2(db, nullptr, SQLITE_CHECKPOINT_PASSIVE, &wal_frames, &copied);
    {
      std::lock_guard lock(mutex_);
      running_ = false;
      if (rc == SQLITE_OK) copied_ = copied;
      if (rc == SQLITE_OK && copied == wal_frames) ++completed_;
    }
    if (rc != SQLITE_OK && (rc & 0xFF) != SQLITE_BUSY)
      log::warn("checkpoint_failed", {{"error", sqlite3_errmsg(db)}});
  }
}

void Checkpointer::truncate_if_idle(sqlite3* db) {
  {
    std::lock_guard lock(mutex_);
    if (!wal_may_hold_frames_ || steady_ms() - last_commit_ms_ < kIdleTruncateMs) return;
  }
  // TRUNCATE waits (busy handler) for readers on older snapshots and holds
  // off a writer while it copies what is left; with commits paused that is
  // little. It fails while the disk is full, and is tried again next time.
  int rc = sqlite3_wal_checkpoint_v2(db, nullptr, SQLITE_CHECKPOINT_TRUNCATE, nullptr, nullptr);
  std::lock_guard lock(mutex_);
  if (rc == SQLITE_OK) {
    // A commit that slipped in meanwhile set the flag again after its
    // frames: only a truncation that saw no newer commit clears it.
    if (steady_ms() - last_commit_ms_ >= kIdleTruncateMs) wal_may_hold_frames_ = false;
    ++truncations_;
    copied_ = 0;
    if (std::exchange(truncation_failing_, false)) log::info("wal_truncated_again");
  } else if ((rc & 0xFF) != SQLITE_BUSY && !std::exchange(truncation_failing_, true)) {
    // Once per spell of failures (a full disk fails it every second).
    log::warn("checkpoint_failed", {{"error", sqlite3_errmsg(db)}, {"mode", "truncate"}});
  }
}

}  // namespace authd::sqlite
