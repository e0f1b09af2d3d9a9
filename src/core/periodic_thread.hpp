// A background thread that runs a task every `interval` until stopped. Used
// for the outbox worker and the pruner.
#pragma once

#include <condition_variable>
#include <functional>
#include <mutex>
#include <string>
#include <thread>

#include "core/duration.hpp"

namespace authd {

class PeriodicThread {
 public:
  PeriodicThread(Duration interval, std::function<void()> task)
      : interval_(interval), task_(std::move(task)) {}
  ~PeriodicThread() { stop(); }

  void start() {
    thread_ = std::thread([this] { loop(); });
  }

  // Lets a running task finish, then joins.
  void stop() {
    {
      std::lock_guard lock(mutex_);
      stopping_ = true;
      signal_.notify_one();
    }
    if (thread_.joinable()) thread_.join();
  }

  bool stopping() {
    std::lock_guard lock(mutex_);
    return stopping_;
  }

  // For the task: waits `delay`, or less if stop() is called meanwhile;
  // false when stopping.
  bool pause(Duration delay) {
    std::unique_lock lock(mutex_);
    return !signal_.wait_for(lock, delay, [this] { return stopping_; });
  }

 private:
  void loop() {
    while (true) {
      task_();
      std::unique_lock lock(mutex_);
      signal_.wait_for(lock, interval_, [this] { return stopping_; });
      if (stopping_) return;
    }
  }

  Duration interval_;
  std::function<void()> task_;
  std::mutex mutex_;
  std::condition_variable signal_;
  bool stopping_ = false;
  std::thread thread_;
};

}  // namespace authd
