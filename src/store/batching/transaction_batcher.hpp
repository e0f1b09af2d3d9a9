// A thread that runs queued write transactions in batches: the SQLite
// writer (SQLite has one writer), through BatchedStore::run_writes, one
// durable commit per batch. It takes what is queued when it comes free, up
// to kMaxBatch, so N concurrent writes cost one fsync instead of N.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <mutex>
#include <thread>
#include <vector>

#include "store/batching/batch_job.hpp"

namespace authd {

class TransactionBatcher {
 public:
  // A batch is bounded so that one batch does not hold SQLite's write lock
  // (and the first waiters' answers) for long.
  static constexpr std::size_t kMaxBatch = 256;

  explicit TransactionBatcher(BatchedStore& store);
  ~TransactionBatcher() { stop(); }
  TransactionBatcher(const TransactionBatcher&) = delete;
  TransactionBatcher& operator=(const TransactionBatcher&) = delete;

  // Once stop() has begun, a new job is refused at once (unavailable)
  // rather than queued where no thread would run it.
  void submit(BatchJob job);

  // Runs what is queued, then joins.
  void stop();

 private:
  void loop();

  BatchedStore& store_;
  std::mutex mutex_;
  std::condition_variable wake_;
  std::vector<BatchJob> queue_;
  bool stopping_ = false;
  std::thread thread_;  // last: it starts once the rest is constructed
};

}  // namespace authd
