// A transaction waiting for its batch, and how a batch of them is run and
// each waiter told its outcome (TransactionBatcher for writes, LoopReads
// and Database for reads).
#pragma once

#include <cstddef>
#include <exception>
#include <functional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "store/batching/batched_store.hpp"

namespace authd {

struct BatchJob {
  using Work = std::function<void(Transaction&)>;
  using Done = std::function<void(StoreStatus, std::exception_ptr)>;
  BatchJob(Work work_, Done done_, std::vector<std::string> lock_keys_ = {})
      : work(std::move(work_)), done(std::move(done_)), lock_keys(std::move(lock_keys_)) {}

  Work work;
  Done done;                           // called after the batch
  std::vector<std::string> lock_keys;  // TransactionUnit::lock_keys
};

// Runs the jobs as one batch, `run_units(std::span<BatchedStore::Unit>)`,
// and tells each its outcome. `units` is scratch space the caller keeps,
// for its capacity.
template <class RunUnits>
void run_batch(std::vector<BatchJob>& batch, std::vector<TransactionUnit>& units,
               RunUnits&& run_units) {
  units.assign(batch.size(), TransactionUnit{});
  for (std::size_t i = 0; i < batch.size(); ++i) {
    units[i].work = &batch[i].work;
    units[i].lock_keys = batch[i].lock_keys;
  }
  try {
    run_units(std::span<TransactionUnit>(units));
  } catch (...) {
    // Out of memory, say: no unit may report success it cannot vouch for.
    for (auto& unit : units) {
      unit.status = StoreStatus::failed;
      unit.error = std::current_exception();
    }
  }
  for (std::size_t i = 0; i < batch.size(); ++i) {
    try {
      batch[i].done(units[i].status, units[i].error);
    } catch (...) {
      // The waiter could not be told (posting its answer failed), or it
      // failed when resumed in place: the others are told all the same.
    }
  }
}

}  // namespace authd
