#include "store/batching/transaction_batcher.hpp"

#include <algorithm>
#include <iterator>
#include <utility>

namespace authd {

TransactionBatcher::TransactionBatcher(BatchedStore& store)
    : store_(store), thread_([this] { loop(); }) {}

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
  if (thread_.joinable()) thread_.join();
}

void TransactionBatcher::loop() {
  std::vector<BatchJob> batch;
  std::vector<BatchedStore::Unit> units;
  for (;;) {
    {
      std::unique_lock lock(mutex_);
      wake_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
      if (queue_.empty()) return;  // stopping, and nothing left
      // What is left past kMaxBatch is taken at once by the next round.
      std::size_t take = std::min(queue_.size(), kMaxBatch);
      batch.assign(std::make_move_iterator(queue_.begin()),
                   std::make_move_iterator(queue_.begin() + static_cast<std::ptrdiff_t>(take)));
      queue_.erase(queue_.begin(), queue_.begin() + static_cast<std::ptrdiff_t>(take));
    }
    run_batch(batch, units, [this](std::span<BatchedStore::Unit> u) { store_.run_writes(u); });
    batch.clear();
  }
}

}  // namespace authd
