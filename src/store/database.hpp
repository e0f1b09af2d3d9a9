// The asynchronous face of a Store for the server: writes run off the
// connection threads, so that an fsync never blocks one.
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
#include <exception>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <boost/asio/associated_executor.hpp>
#include <boost/asio/async_result.hpp>
#include <boost/asio/awaitable.hpp>
#include <boost/asio/dispatch.hpp>
#include <boost/asio/execution/context.hpp>
#include <boost/asio/execution/outstanding_work.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/prefer.hpp>
#include <boost/asio/query.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/thread_pool.hpp>
#include <boost/asio/use_awaitable.hpp>

#include "core/offload.hpp"
#include "store/batching/batched_store.hpp"
#include "store/batching/loop_reads.hpp"
#include "store/batching/queued_write_store.hpp"
#include "store/batching/transaction_batcher.hpp"
#include "store/commit_health.hpp"
#include "store/store.hpp"

namespace authd {

class Database {
 public:
  // `threads` run the requests' write transactions on a store that does not
  // batch them (PostgreSQL). A BatchedStore (SQLite) runs them on its writer
  // thread and needs no pool. Reads run on the callers' threads either way.
  Database(Store& store, std::size_t threads)
      : store_(store), batched_(dynamic_cast<BatchedStore*>(&store)) {
    if (batched_ != nullptr) {
      writer_ = std::make_unique<TransactionBatcher>(*batched_);
    } else {
      pool_.emplace(threads);
      together_ = std::make_unique<TransactionBatcher>(
          [&store](std::span<TransactionUnit> units) { store.run_together(units); },
          kTogetherThreads, kTogetherMaxBatch);
    }
    background_ = std::make_unique<QueuedWriteStore>(store_, writer_.get());
  }
  ~Database() { stop(); }

  // For threads that are not coroutines and may block (QueuedWriteStore).
  Store& for_background_threads() { return *background_; }

  // `work(Transaction&)` runs on a database thread while the caller's
  // coroutine is suspended, so it may capture the caller's locals by
  // reference. It is taken as a named lvalue (see offload.hpp on GCC 12).
  template <class Work>
  boost::asio::awaitable<StoreStatus> write(Work& work) {
    StoreStatus status = StoreStatus::failed;
    if (writer_) {
      status = co_await run_batched(*writer_, work);
    } else {
      auto job = [this, &work] { return store_.run(Store::Mode::write, work); };
      status = co_await run_on(*pool_, job);
    }
    commits_.note(status, CommitHealth::steady_now_ms());
    co_return status;
  }

  // A write that may share its transaction and COMMIT with others (logout,
  // /forgot): on PostgreSQL the writes queued while a batch runs go
  // together in the next one (Store::run_together); on SQLite every write
  // does already. `work` may run twice (once in a batch undone as a whole,
  // then alone), so it may only assign its results. It must lock no row
  // but its own (another instance's batch could hold it while waiting on
  // one of ours), and name in `lock_keys` every throttling key it counts:
  // a batch locks all of its units' keys first, in one order, and it may
  // add events only for those keys. Work whose keys no other unit of its
  // batch names may have its statements interleaved with the rest of the
  // batch (TransactionUnit::lock_keys).
  template <class Work>
  boost::asio::awaitable<StoreStatus> write_together(Work& work,
                                                     std::vector<std::string> lock_keys = {}) {
    if (writer_) {
      StoreStatus status = co_await write(work);
      co_return status;
    }
    StoreStatus status = co_await run_batched(*together_, work, std::move(lock_keys));
    commits_.note(status, CommitHealth::steady_now_ms());
    co_return status;
  }

  template <class Work>
  boost::asio::awaitable<StoreStatus> read(Work& work) {
    StoreStatus status = co_await run_in_loop_batch(work);
    co_return status;
  }

  // A read that visits many rows or runs a statement for each (the /metrics
  // counts, the second factors of an admin page of accounts) runs on the
  // side thread, so that it never holds up the requests' reads and the
  // connection threads that run them.
  template <class Work>
  boost::asio::awaitable<StoreStatus> read_aside(Work& work) {
    StoreStatus status = co_await read_on(aside_, work);
    co_return status;
  }

  // GET /healthz: the store answers a read, and it can commit: the last
  // write succeeded. When no request has written for a while, or the last
  // write failed, a probe write (rate-limited, one at a time) finds out, so
  // that a full disk shows as 503 and freed space as 200 again without
  // waiting for traffic that a load balancer no longer sends.
  boost::asio::awaitable<bool> healthy() {
    auto job = [this] { return store_.healthy(); };
    bool readable = co_await run_on(aside_, job);
    if (!readable) co_return false;
    if (commits_.probe_due(CommitHealth::steady_now_ms())) {
      auto probe = [](Transaction& tx) {
        // Inserted and deleted again: pages change and the commit is
        // durable, as any request's, and nothing is left behind.
        tx.throttle().insert_event(kProbeKey, 0);
        tx.throttle().delete_events(kProbeKey);
      };
      co_await write(probe);
      commits_.probe_done();
    }
    co_return commits_.last_ok();
  }

  // Afterwards queued reads and writes answer unavailable. Waits for the
  // read batches already running on the callers' threads.
  void stop() {
    stopped_ = true;
    for (int running = batches_running_; running != 0; running = batches_running_)
      batches_running_.wait(running);
    if (writer_) writer_->stop();
    if (together_) together_->stop();
    if (pool_) pool_->join();
    aside_.join();
  }

 private:
  // Queues `work` on a batching thread; the coroutine resumes on its own
  // executor once the batch has finished (for writes: committed).
  template <class Work>
  static boost::asio::awaitable<StoreStatus> run_batched(TransactionBatcher& batcher, Work& work,
                                                         std::vector<std::string> lock_keys = {}) {
    namespace asio = boost::asio;
    // Tracked: while the job waits for its batch, the caller's io_context
    // still has outstanding work, so a draining server does not stop under it.
    auto current = co_await asio::this_coro::executor;
    auto caller = asio::prefer(current, asio::execution::outstanding_work.tracked);
    auto initiation = [&batcher, caller, &work, &lock_keys](auto handler) {
      // The handler is move-only; std::function wants a copyable callable.
      auto shared = std::make_shared<decltype(handler)>(std::move(handler));
      batcher.submit(BatchJob{[&work](Transaction& tx) { work(tx); },
                              [caller, shared](StoreStatus status, std::exception_ptr error) {
                                asio::post(caller, [shared, status, error] {
                                  std::move (*shared)(error, status);
                                });
                              },
                              std::move(lock_keys)});
    };
    StoreStatus status = co_await asio::async_initiate<decltype(asio::use_awaitable),
                                                       void(std::exception_ptr, StoreStatus)>(
        initiation, asio::use_awaitable);
    co_return status;
  }

  // Queues the read in the caller's execution context (LoopReads); the run
  // posted by the first read of the turn runs the batch, then resumes each
  // caller through its own executor: in place when that is where the run
  // is (a connection thread's loop), posted when not (another strand).
  template <class Work>
  boost::asio::awaitable<StoreStatus> run_in_loop_batch(Work& work) {
    namespace asio = boost::asio;
    auto executor = co_await asio::this_coro::executor;
    LoopReads& reads =
        asio::use_service<LoopReads>(asio::query(executor, asio::execution::context));
    auto initiation = [this, executor, &reads, &work](auto handler) {
      auto resume_on = asio::get_associated_executor(handler, executor);
      auto shared = std::make_shared<decltype(handler)>(std::move(handler));
      bool first = reads.add(
          this, BatchJob{[&work](Transaction& tx) { work(tx); },
                         [resume_on, shared](StoreStatus status, std::exception_ptr error) {
                           asio::dispatch(resume_on, [shared, status, error] {
                             std::move (*shared)(error, status);
                           });
                         }});
      if (first) asio::post(executor, [this, &reads] { run_loop_batch(reads); });
    };
    StoreStatus status = co_await asio::async_initiate<decltype(asio::use_awaitable),
                                                       void(std::exception_ptr, StoreStatus)>(
        initiation, asio::use_awaitable);
    co_return status;
  }

  void run_loop_batch(LoopReads& reads) {
    std::vector<BatchJob> batch = reads.take(this);
    // Counted before stopped_ is read, so that stop() either sees this batch
    // and waits for it, or this batch sees stop() and runs nothing.
    ++batches_running_;
    std::vector<TransactionUnit> units;
    run_batch(batch, units, [this](std::span<TransactionUnit> u) {
      if (stopped_) {
        for (TransactionUnit& unit : u) unit.status = StoreStatus::unavailable;
      } else if (batched_ != nullptr) {
        batched_->run_reads(u);  // one read transaction
      } else {
        store_.run_reads_together(u);  // one connection's pipeline
      }
    });
    if (--batches_running_ == 0) batches_running_.notify_all();
  }

  template <class Work>
  boost::asio::awaitable<StoreStatus> read_on(boost::asio::thread_pool& pool, Work& work) {
    auto job = [this, &work] { return store_.run(Store::Mode::read, work); };
    StoreStatus status = co_await run_on(pool, job);
    co_return status;
  }

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
