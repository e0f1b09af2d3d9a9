// The reads asked for during one turn of an event loop, gathered so that
// they run together on that loop's thread (Database::read on SQLite). One
// LoopReads lives in each execution context (an asio service): a connection
// thread's io_context, or whatever context a caller's coroutine runs on.
// It keeps a queue per Database (the owner), so that two databases used
// from one loop never run each other's reads. The first read queued for an
// owner in a turn posts one run to the context; the reads queued after it,
// until that run starts, join its batch. The queues have a lock of their
// own, for contexts run by several threads.
#pragma once

#include <mutex>
#include <utility>
#include <vector>

#include <boost/asio/execution_context.hpp>

#include "store/batching/batch_job.hpp"

namespace authd {

class LoopReads final : public boost::asio::execution_context::service {
 public:
  using key_type = LoopReads;
  // Asio's service key; its constructor does nothing that could throw.
  static inline boost::asio::execution_context::id id;  // NOLINT(cert-err58-cpp)

  explicit LoopReads(boost::asio::execution_context& context) : service(context) {}

  // Queues a read for `owner`; true when it is the first since the owner's
  // last take(), and the caller must post the run that will take it.
  bool add(const void* owner, BatchJob job) {
    std::lock_guard lock(mutex_);
    Queue& queue = queue_of(owner);
    queue.jobs.push_back(std::move(job));
    return !std::exchange(queue.run_posted, true);
  }

  // Every read queued for `owner` since its last take(), oldest first.
  std::vector<BatchJob> take(const void* owner) {
    std::lock_guard lock(mutex_);
    Queue& queue = queue_of(owner);
    queue.run_posted = false;
    return std::exchange(queue.jobs, {});
  }

 private:
  struct Queue {
    const void* owner = nullptr;
    std::vector<BatchJob> jobs;
    bool run_posted = false;
  };

  Queue& queue_of(const void* owner) {
    for (Queue& queue : queues_)
      if (queue.owner == owner) return queue;
    return queues_.emplace_back(Queue{owner, {}, false});
  }

  // The context is going away, and with it the handlers these reads would
  // have resumed.
  void shutdown() override {
    std::vector<Queue> dropped;
    std::lock_guard lock(mutex_);
    dropped.swap(queues_);
  }

  std::mutex mutex_;
  std::vector<Queue> queues_;  // one per Database that read from this context; a few at most
};

}  // namespace authd
