// How the Database's transactions are scheduled (store/database.hpp):
// writes run off the connection threads, so that an fsync never blocks one.
//
// Reads are gathered per turn of a connection thread's event loop: the
// reads asked for during one turn run together on that thread after it
// (LoopReads), so each still sees every commit that had returned before it
// was asked for. Handing them to a thread of their own and back cost more
// than the reads: on SQLite a read in WAL mode never waits for the writer
// and takes microseconds
// (docs/design/performance-choices.md#reads-in-batches-on-the-connection-threads);
// on PostgreSQL the batch shares one connection's round trips and a statement
// for its token checks (store/postgres/read_pipeline.hpp), and the hand-offs
// were a third of authd's CPU per GET /me and most of its tail behind a login
// flood. The connection thread then waits out the batch's round trip, bounded
// like any transaction by the store's deadline.
//
// Writes:
// - SQLite (a BatchedStore): group commit. One writer thread drains the
//   queue of pending writes and hands them to the store as a batch that
//   shares one durable commit (TransactionBatcher, BatchedStore::run_writes).
//   A coroutine resumes only after the commit of its batch has returned, so
//   no answer is sent before its data is durable (interface.md 8.3), while
//   N concurrent writes cost one fsync instead of N.
// - PostgreSQL: a small dedicated thread pool, each thread waiting out its
//   round trips; the writes that may share a transaction (logouts,
//   /forgot) go in batches to two threads of their own (write_together).
// Side work (the /metrics counts, the /healthz check) runs on one thread of
// its own, so that it never holds up the requests' transactions.
#pragma once

#include <atomic>
#include <cstddef>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <boost/asio/thread_pool.hpp>

#include "store/batching/commit_health.hpp"
#include "store/database.hpp"
#include "store/store.hpp"

namespace authd {

class BatchedStore;
class LoopReads;
class QueuedWriteStore;
class TransactionBatcher;

class ScheduledDatabase final : public Database {
 public:
  // `threads` run the requests' write transactions on a store that does not
  // batch them (PostgreSQL). A BatchedStore (SQLite) runs them on its writer
  // thread and needs no pool. Reads run on the callers' threads either way.
  ScheduledDatabase(Store& store, std::size_t threads);
  ~ScheduledDatabase() override;

  Store& for_background_threads() override;

  // When no request has written for a while, or the last write failed, a
  // probe write (rate-limited, one at a time) finds out, so that a full
  // disk shows as 503 and freed space as 200 again without waiting for
  // traffic that a load balancer no longer sends.
  boost::asio::awaitable<bool> healthy() override;

  // Waits for the read batches already running on the callers' threads.
  void stop() override;

 protected:
  boost::asio::awaitable<StoreStatus> write_work(TransactionWork work) override;
  boost::asio::awaitable<StoreStatus> write_together_work(
      TransactionWork work, std::vector<std::string> lock_keys) override;
  boost::asio::awaitable<StoreStatus> read_work(TransactionWork work) override;
  boost::asio::awaitable<StoreStatus> read_aside_work(TransactionWork work) override;

 private:
  static boost::asio::awaitable<StoreStatus> run_batched(TransactionBatcher& batcher,
                                                         const TransactionWork& work,
                                                         std::vector<std::string> lock_keys = {});
  boost::asio::awaitable<StoreStatus> write_alone(TransactionWork work);
  boost::asio::awaitable<StoreStatus> write_in_batch(TransactionWork work,
                                                     std::vector<std::string> lock_keys);
  boost::asio::awaitable<StoreStatus> run_in_loop_batch(TransactionWork work);
  void run_loop_batch(LoopReads& reads);
  boost::asio::awaitable<StoreStatus> read_on(boost::asio::thread_pool& pool, TransactionWork work);

  static constexpr std::string_view kProbeKey = "health:write-probe";

  CommitHealth commits_;
  Store& store_;
  BatchedStore* batched_;                         // null: one transaction per call
  std::optional<boost::asio::thread_pool> pool_;  // only without batching
  boost::asio::thread_pool aside_{1};             // /metrics counts, /healthz
  std::unique_ptr<TransactionBatcher> writer_;    // only with batching
  // PostgreSQL's write_together: two threads, so that one batch's round
  // trips overlap the other's COMMIT; a bound that keeps a batch's serial
  // round trips (about 0.1 ms each) under a few milliseconds.
  static constexpr std::size_t kTogetherThreads = 2;
  static constexpr std::size_t kTogetherMaxBatch = 32;
  std::unique_ptr<TransactionBatcher> together_;  // only without batching
  std::atomic<bool> stopped_ = false;             // reads after stop() are unavailable
  std::atomic<int> batches_running_ = 0;
  std::unique_ptr<QueuedWriteStore> background_;
};

}  // namespace authd
