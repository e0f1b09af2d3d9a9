// The store as the server's background threads (outbox worker, pruner) see
// it: they block, so they call Store::run, but with group commit their
// writes join the writer's queue instead of competing with it for SQLite's
// write lock. Competing, they could lose for the whole busy timeout while
// requests kept the writer busy (bench: `store_busy` warnings during the
// /forgot scenarios, each a mail claim that had to wait for the next poll).
// Never call it from a write's own work: that runs on the writer's thread,
// which would wait for itself.
#pragma once

#include <exception>
#include <future>

#include "store/batching/transaction_batcher.hpp"

namespace authd {

class QueuedWriteStore final : public Store {
 public:
  // `writer` null: the store has no group commit, and writes run directly.
  QueuedWriteStore(Store& store, TransactionBatcher* writer) : store_(store), writer_(writer) {}

  StoreStatus run(Mode mode, const std::function<void(Transaction&)>& work) override {
    if (mode == Mode::read || writer_ == nullptr) return store_.run(mode, work);
    std::promise<void> committed;
    StoreStatus status = StoreStatus::failed;
    std::exception_ptr error;
    writer_->submit(BatchJob{[&work](Transaction& tx) { work(tx); },
                             [&](StoreStatus s, const std::exception_ptr& e) {
                               status = s;
                               error = e;
                               committed.set_value();
                             }});
    committed.get_future().wait();
    if (error) std::rethrow_exception(error);
    return status;
  }
  int migrate() override { return store_.migrate(); }
  bool healthy() override { return store_.healthy(); }

 private:
  Store& store_;
  TransactionBatcher* writer_;
};

}  // namespace authd
