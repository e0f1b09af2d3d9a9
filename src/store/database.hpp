// The asynchronous face of a Store for the server: writes run off the
// connection threads, so that an fsync never blocks one.
//
// Reads and writes run on a small dedicated thread pool (PostgreSQL, where
// each waits out a network round trip), unless the store asks for batches
// (SQLite):
// - group commit: one writer thread drains the queue of pending writes and
//   hands them to the store as a batch that shares one durable commit
//   (Store::run_writes). A coroutine resumes only after the commit of its
//   batch has returned, so no answer is sent before its data is durable
//   (decisions.md 8.3), while N concurrent writes cost one fsync instead of N;
// - group reads: the reads asked for during one turn of a connection
//   thread's event loop run together on that thread, in one read
//   transaction begun after all of them were queued (LoopReads,
//   Store::run_reads), so each still sees every commit that had returned
//   before it was asked for. An SQLite read in WAL mode never waits for the
//   writer and takes microseconds (indexed lookups in a local file): handing
//   it to a read thread and back cost more than the read itself
//   (docs/performance.md, section 18).
#pragma once

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <exception>
#include <functional>
#include <future>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include <boost/asio/async_result.hpp>
#include <boost/asio/awaitable.hpp>
#include <boost/asio/execution/context.hpp>
#include <boost/asio/execution/outstanding_work.hpp>
#include <boost/asio/execution_context.hpp>
#include <boost/asio/query.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/prefer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/thread_pool.hpp>
#include <boost/asio/use_awaitable.hpp>

#include "core/offload.hpp"
#include "store/store.hpp"

namespace authd {

// Threads that run queued transactions in batches: writes through
// Store::run_writes (one thread: SQLite has one writer; one durable commit
// per batch), reads through Store::run_reads (one read transaction per
// batch). The threads share one queue; each takes its share of what is
// queued when it comes free.
class TransactionBatcher {
 public:
  using RunBatch = void (Store::*)(std::span<Store::BatchUnit>);
  struct Job {
    std::function<void(Transaction&)> work;
    std::function<void(StoreStatus, std::exception_ptr)> done;  // called after the batch
  };

  // A batch is bounded so that one batch does not hold SQLite's write lock
  // (and the first waiters' answers) for long.
  static constexpr std::size_t kMaxBatch = 256;

  TransactionBatcher(Store& store, RunBatch run_batch, std::size_t threads)
      : store_(store), run_batch_(run_batch), thread_count_(std::max<std::size_t>(threads, 1)) {
    threads_.reserve(thread_count_);
    try {
      for (std::size_t i = 0; i < thread_count_; ++i) threads_.emplace_back([this] { loop(); });
    } catch (...) {
      stop();  // joins the threads already started
      throw;
    }
  }
  ~TransactionBatcher() { stop(); }

  // Once stop() has begun, a new job is refused at once (unavailable)
  // rather than queued where no thread would run it.
  void submit(Job job) {
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

  // Runs what is queued, then joins.
  // Runs the jobs as one batch of the store and tells each its outcome.
  // `units` is scratch space the caller keeps, for its capacity.
  static void run_jobs(Store& store, RunBatch run_batch, std::vector<Job>& batch,
                       std::vector<Store::BatchUnit>& units) {
    units.assign(batch.size(), Store::BatchUnit{});
    for (std::size_t i = 0; i < batch.size(); ++i) units[i].work = &batch[i].work;
    try {
      (store.*run_batch)(units);
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

  void stop() {
    {
      std::lock_guard lock(mutex_);
      stopping_ = true;
    }
    wake_.notify_all();
    for (auto& thread : threads_)
      if (thread.joinable()) thread.join();
  }

 private:
  void loop() {
    std::vector<Job> batch;
    std::vector<Store::BatchUnit> units;
    for (;;) {
      {
        std::unique_lock lock(mutex_);
        wake_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
        if (queue_.empty()) return;  // stopping, and nothing left
        // A fair share, so that the other threads have work too; a thread
        // that finds more queued when it is done comes back for it at once.
        std::size_t share = (queue_.size() + thread_count_ - 1) / thread_count_;
        std::size_t take = std::min(share, kMaxBatch);
        batch.assign(std::make_move_iterator(queue_.begin()),
                     std::make_move_iterator(queue_.begin() + static_cast<std::ptrdiff_t>(take)));
        queue_.erase(queue_.begin(), queue_.begin() + static_cast<std::ptrdiff_t>(take));
      }
      run_jobs(store_, run_batch_, batch, units);
      batch.clear();
    }
  }

  Store& store_;
  RunBatch run_batch_;
  const std::size_t thread_count_;
  std::mutex mutex_;
  std::condition_variable wake_;
  std::vector<Job> queue_;
  bool stopping_ = false;
  std::vector<std::thread> threads_;  // last: they start once the rest is constructed
};

// The reads asked for during one turn of an event loop, gathered so that
// they run together on that loop's thread (Database::read on SQLite). One
// LoopReads lives in each execution context (an asio service): a connection
// thread's io_context, or whatever context a caller's coroutine runs on. The
// first read queued in a turn posts one run to the context; the reads queued
// after it, until that run starts, join its batch. The queue has a lock of
// its own, so a context run by several threads is safe too.
class LoopReads final : public boost::asio::execution_context::service {
 public:
  using key_type = LoopReads;
  static inline boost::asio::execution_context::id id;

  explicit LoopReads(boost::asio::execution_context& context) : service(context) {}

  // Queues a read; true when it is the first since the last take(), and the
  // caller must post the run that will take it.
  bool add(TransactionBatcher::Job job) {
    std::lock_guard lock(mutex_);
    queue_.push_back(std::move(job));
    return !std::exchange(run_posted_, true);
  }

  // Every read queued since the last take(), oldest first.
  std::vector<TransactionBatcher::Job> take() {
    std::lock_guard lock(mutex_);
    run_posted_ = false;
    return std::exchange(queue_, {});
  }

 private:
  // The context is going away, and with it the handlers these reads would
  // have resumed.
  void shutdown() override {
    std::vector<TransactionBatcher::Job> dropped;
    std::lock_guard lock(mutex_);
    dropped.swap(queue_);
  }

  std::mutex mutex_;
  std::vector<TransactionBatcher::Job> queue_;
  bool run_posted_ = false;
};

// The store as the server's background threads (outbox worker, pruner) see
// it: they block, so they call Store::run, but with group commit their
// writes join the writer's queue instead of competing with it for SQLite's
// write lock. Competing, they could lose for the whole busy timeout while
// requests kept the writer busy (bench: `store_busy` warnings during the
// /forgot scenarios, each a mail claim that had to wait for the next poll).
// Never call it from a write's own work: that runs on the writer's thread,
// which would wait for itself.
class QueuedWriteStore final : public Store {
 public:
  QueuedWriteStore(Store& store, TransactionBatcher* writer) : store_(store), writer_(writer) {}

  StoreStatus run(Mode mode, const std::function<void(Transaction&)>& work) override {
    if (mode == Mode::read || writer_ == nullptr) return store_.run(mode, work);
    std::promise<void> committed;
    StoreStatus status = StoreStatus::failed;
    std::exception_ptr error;
    writer_->submit(TransactionBatcher::Job{[&work](Transaction& tx) { work(tx); },
                                            [&](StoreStatus s, std::exception_ptr e) {
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
  TransactionBatcher* writer_;  // null: the store has no group commit
};

class Database {
 public:
  // `threads` run the requests' transactions: the pool's threads, or with
  // group reads and group commit (SQLite) the read batcher's, and then the
  // pool keeps a single thread, for the health check.
  Database(Store& store, std::size_t threads)
      : store_(store), pool_(store.group_reads() && store.group_commit() ? 1 : threads), aside_(1) {
    if (store_.group_commit())
      writer_ = std::make_unique<TransactionBatcher>(store_, &Store::run_writes, 1);
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
    if (!writer_) {
      auto job = [this, &work] { return store_.run(Store::Mode::write, work); };
      StoreStatus status = co_await run_on(pool_, job);
      co_return status;
    }
    StoreStatus status = co_await run_batched(*writer_, work);
    co_return status;
  }

  template <class Work>
  boost::asio::awaitable<StoreStatus> read(Work& work) {
    if (store_.group_reads()) {
      StoreStatus status = co_await run_in_loop_batch(work);
      co_return status;
    }
    StoreStatus status = co_await read_on(pool_, work);
    co_return status;
  }

  // A read that visits many rows (the /metrics counts) runs on a thread of
  // its own, so that it never holds up the requests' reads, which on SQLite
  // run on one thread on two cores.
  template <class Work>
  boost::asio::awaitable<StoreStatus> read_aside(Work& work) {
    StoreStatus status = co_await read_on(aside_, work);
    co_return status;
  }

  boost::asio::awaitable<bool> healthy() {
    auto job = [this] { return store_.healthy(); };
    bool ok = co_await run_on(pool_, job);
    co_return ok;
  }

  void stop() {
    stopped_ = true;
    if (writer_) writer_->stop();
    pool_.join();
    aside_.join();
  }

 private:
  // Queues `work` on a batching thread; the coroutine resumes on its own
  // executor once the batch has finished (for writes: committed).
  template <class Work>
  static boost::asio::awaitable<StoreStatus> run_batched(TransactionBatcher& batcher, Work& work) {
    namespace asio = boost::asio;
    // Tracked: while the job waits for its batch, the caller's io_context
    // still has outstanding work, so a draining server does not stop under it.
    auto current = co_await asio::this_coro::executor;
    auto caller = asio::prefer(current, asio::execution::outstanding_work.tracked);
    auto initiation = [&batcher, caller, &work](auto handler) {
      // The handler is move-only; std::function wants a copyable callable.
      auto shared = std::make_shared<decltype(handler)>(std::move(handler));
      batcher.submit(TransactionBatcher::Job{
          [&work](Transaction& tx) { work(tx); },
          [caller, shared](StoreStatus status, std::exception_ptr error) {
            asio::post(caller, [shared, status, error] { std::move (*shared)(error, status); });
          }});
    };
    StoreStatus status = co_await asio::async_initiate<decltype(asio::use_awaitable),
                                                       void(std::exception_ptr, StoreStatus)>(
        initiation, asio::use_awaitable);
    co_return status;
  }

  // Queues the read in the caller's execution context (LoopReads); the run
  // posted by the first read of the turn resumes each caller in place, on
  // that context's thread, once the batch is done.
  template <class Work>
  boost::asio::awaitable<StoreStatus> run_in_loop_batch(Work& work) {
    namespace asio = boost::asio;
    auto executor = co_await asio::this_coro::executor;
    LoopReads& reads = asio::use_service<LoopReads>(asio::query(executor, asio::execution::context));
    auto initiation = [this, executor, &reads, &work](auto handler) {
      auto shared = std::make_shared<decltype(handler)>(std::move(handler));
      bool first = reads.add(TransactionBatcher::Job{
          [&work](Transaction& tx) { work(tx); },
          [shared](StoreStatus status, std::exception_ptr error) {
            std::move (*shared)(error, status);
          }});
      if (first) asio::post(executor, [this, &reads] { run_loop_batch(reads); });
    };
    StoreStatus status = co_await asio::async_initiate<decltype(asio::use_awaitable),
                                                       void(std::exception_ptr, StoreStatus)>(
        initiation, asio::use_awaitable);
    co_return status;
  }

  void run_loop_batch(LoopReads& reads) {
    std::vector<TransactionBatcher::Job> batch = reads.take();
    if (stopped_) {
      for (auto& job : batch) job.done(StoreStatus::unavailable, nullptr);
      return;
    }
    std::vector<Store::BatchUnit> units;
    TransactionBatcher::run_jobs(store_, &Store::run_reads, batch, units);
  }

  template <class Work>
  boost::asio::awaitable<StoreStatus> read_on(boost::asio::thread_pool& pool, Work& work) {
    auto job = [this, &work] { return store_.run(Store::Mode::read, work); };
    StoreStatus status = co_await run_on(pool, job);
    co_return status;
  }

  Store& store_;
  boost::asio::thread_pool pool_;
  boost::asio::thread_pool aside_;
  std::unique_ptr<TransactionBatcher> writer_;
  std::atomic<bool> stopped_ = false;  // reads after stop() are unavailable
  std::unique_ptr<QueuedWriteStore> background_;
};

}  // namespace authd
