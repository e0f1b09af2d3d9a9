// Whether the store can commit, from the outcome of the last writes, and
// when GET /healthz should probe it with a write of its own: after a
// failure, at most once a second; after kQuietMs without writes, once per
// kQuietMs. Times are steady-clock milliseconds, passed in by the caller
// (Database) so that the policy is tested without waiting.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>

#include "store/store.hpp"

namespace authd {

class CommitHealth {
 public:
  static constexpr std::int64_t kRetryMs = 1000;
  static constexpr std::int64_t kQuietMs = 10000;

  static std::int64_t steady_now_ms() {
    return std::chrono::duration_cast<std::chrono::milliseconds>(
               std::chrono::steady_clock::now().time_since_epoch())
        .count();
  }

  void note(StoreStatus status, std::int64_t now_ms) {
    last_ok_ = status == StoreStatus::ok;
    last_write_ms_ = now_ms;
  }
  bool last_ok() const { return last_ok_; }

  // True for one caller at a time (until probe_done), when a probe is due.
  bool probe_due(std::int64_t now_ms) {
    std::int64_t wait = last_ok_ ? kQuietMs : kRetryMs;
    if (now_ms - last_write_ms_ < wait || now_ms - last_probe_ms_ < wait) return false;
    if (probing_.exchange(true)) return false;
    last_probe_ms_ = now_ms;
    return true;
  }
  void probe_done() { probing_ = false; }

 private:
  std::atomic<bool> last_ok_{true};
  std::atomic<std::int64_t> last_write_ms_{0};
  std::atomic<std::int64_t> last_probe_ms_{0};
  std::atomic<bool> probing_{false};
};

}  // namespace authd
