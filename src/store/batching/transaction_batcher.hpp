// Threads that run queued transactions in batches: the SQLite writer
// (SQLite has one writer), through BatchedStore::run_writes, one durable
// commit per batch; on PostgreSQL the writes that may share a transaction
// (Database::write_together), through Store::run_together. A thread
// takes what is queued when it comes free, up to its batch bound, so N
// concurrent writes cost one commit instead of N.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <functional>
#include <mutex>
#include <span>
#include <thread>
#include <vector>

#include "store/batching/batch_job.hpp"

namespace authd {

class TransactionBatcher {
 public:
  // A batch is bounded so that one batch does not hold SQLite's write lock
  // (and the first waiters' answers) for long.
  static constexpr std::size_t kMaxBatch = 256;

  using RunWrites = std::function<void(std::span<TransactionUnit>)>;

  // SQLite: one thread, batches of up to kMaxBatch.
  explicit TransactionBatcher(BatchedStore& store);
  TransactionBatcher(RunWrites run_writes, std::size_t threads, std::size_t max_batch);
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

  RunWrites run_writes_;
  std::size_t max_batch_;
  std::mutex mutex_;
  std::condition_variable wake_;
  std::vector<BatchJob> queue_;
  bool stopping_ = false;
  std::vector<std::thread> threads_;  // last: they start once the rest is constructed
};

}  // namespace authd
