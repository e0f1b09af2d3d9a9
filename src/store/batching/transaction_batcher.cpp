#include "store/batching/transaction_batcher.hpp"

#include <algorithm>
#include <iterator>
#include <utility>

namespace authd {

TransactionBatcher::TransactionBatcher(BatchedStore& store)
    : TransactionBatcher([&store](std::span<TransactionUnit> u) { store.run_writes(u); }, 1,
                         kMaxBatch) {}

TransactionBatcher::TransactionBatcher(RunWrites run_writes, std::size_t threads,
                                       std::size_t max_batch)
    : run_writes_(std::move(run_writes)), max_batch_(std::max<std::size_t>(max_batch, 1)) {
  for (std::size_t i = 0; i < std::max<std::size_t>(threads, 1); ++i)
    threads_.emplace_back([this] { loop(); });
}

void TransactionBatcher::submit(BatchJob job) {
  {
    std::lock_guard lock(mutex_);
    if (!stopping_) {
      queue_.push_back(std::move(job));
      wake_.notify_one();
      return;
    }
  }
  job.done(StoreStatus::unavailable, nullptr);
}

void TransactionBatcher::stop() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  for (std::thread& thread : threads_)
    if (thread.joinable()) thread.join();
}

void TransactionBatcher::loop() {
  std::vector<BatchJob> batch;
  std::vector<TransactionUnit> units;
  for (;;) {
    {
      std::unique_lock lock(mutex_);
      wake_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
      if (queue_.empty()) return;  // stopping, and nothing left
      // What is left past the bound is taken at once by the next round.
      std::size_t take = std::min(queue_.size(), max_batch_);
      batch.assign(std::make_move_iterator(queue_.begin()),
                   std::make_move_iterator(queue_.begin() + static_cast<std::ptrdiff_t>(take)));
      queue_.erase(queue_.begin(), queue_.begin() + static_cast<std::ptrdiff_t>(take));
    }
    run_batch(batch, units, run_writes_);
    batch.clear();
  }
}

}  // namespace authd
