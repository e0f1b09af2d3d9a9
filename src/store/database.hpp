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
//   (interface.md 8.3), while N concurrent writes cost one fsync instead of N;
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
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <exception>
#include <functional>
#include <future>
#include <memory>
#include <mutex>
#include <span>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

#include <boost/asio/associated_executor.hpp>
#include <boost/asio/async_result.hpp>
#include <boost/asio/awaitable.hpp>
#include <boost/asio/dispatch.hpp>
#include <boost/asio/execution/context.hpp>
#include <boost/asio/execution/outstanding_work.hpp>
#include <boost/asio/execution_context.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/prefer.hpp>
#include <boost/asio/query.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/thread_pool.hpp>
#include <boost/asio/use_awaitable.hpp>

#include "core/offload.hpp"
#include "store/store.hpp"

namespace authd {

// A thread that runs queued transactions in batches: the SQLite writer
// (SQLite has one writer), through Store::run_writes, one durable commit per
// batch. It takes what is queued when it comes free, up to kMaxBatch.
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

  TransactionBatcher(Store& store, RunBatch run_batch)
      : store_(store), run_batch_(run_batch), thread_([this] { loop(); }) {}
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

  // Runs the jobs as one batch, `run_units(std::span<Store::BatchUnit>)`,
  // and tells each its outcome. `units` is scratch space the caller keeps,
  // for its capacity.
  template <class RunUnits>
  static void run_jobs(std::vector<Job>& batch, std::vector<Store::BatchUnit>& units,
                       RunUnits&& run_units) {
    units.assign(batch.size(), Store::BatchUnit{});
    for (std::size_t i = 0; i < batch.size(); ++i) units[i].work = &batch[i].work;
    try {
      run_units(std::span<Store::BatchUnit>(units));
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

  // Runs what is queued, then joins.
  void stop() {
    {
      std::lock_guard lock(mutex_);
      stopping_ = true;
    }
    wake_.notify_all();
    if (thread_.joinable()) thread_.join();
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
        // What is left past kMaxBatch is taken at once by the next round.
        std::size_t take = std::min(queue_.size(), kMaxBatch);
        batch.assign(std::make_move_iterator(queue_.begin()),
                     std::make_move_iterator(queue_.begin() + static_cast<std::ptrdiff_t>(take)));
        queue_.erase(queue_.begin(), queue_.begin() + static_cast<std::ptrdiff_t>(take));
      }
      run_jobs(batch, units, [this](std::span<Store::BatchUnit> u) { (store_.*run_batch_)(u); });
      batch.clear();
    }
  }

  Store& store_;
  RunBatch run_batch_;
  std::mutex mutex_;
  std::condition_variable wake_;
  std::vector<Job> queue_;
  bool stopping_ = false;
  std::thread thread_;  // last: it starts once the rest is constructed
};

// The reads asked for during one turn of an event loop, gathered so that
// they run together on that loop's thread (Database::read on SQLite). One
// LoopReads lives in each execution context (an asio service): a connection
// thread's io_context, or whatever context a caller's coroutine runs on.
// It keeps a queue per Database (the owner), so that two databases used
// from one loop never run each other's reads. The first read queued for an
// owner in a turn posts one run to the context; the reads queued after it,
// until that run starts, join its batch. The queues have a lock of their
// own, for contexts run by several threads.
class LoopReads final : public boost::asio::execution_context::service {
 public:
  using key_type = LoopReads;
  static inline boost::asio::execution_context::id id;

  explicit LoopReads(boost::asio::execution_context& context) : service(context) {}

  // Queues a read for `owner`; true when it is the first since the owner's
  // last take(), and the caller must post the run that will take it.
  bool add(const void* owner, TransactionBatcher::Job job) {
    std::lock_guard lock(mutex_);
    Queue& queue = queue_of(owner);
    queue.jobs.push_back(std::move(job));
    return !std::exchange(queue.run_posted, true);
  }

  // Every read queued for `owner` since its last take(), oldest first.
  std::vector<TransactionBatcher::Job> take(const void* owner) {
    std::lock_guard lock(mutex_);
    Queue& queue = queue_of(owner);
    queue.run_posted = false;
    return std::exchange(queue.jobs, {});
  }

 private:
  struct Queue {
    const void* owner = nullptr;
    std::vector<TransactionBatcher::Job> jobs;
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

// Whether the store can commit, from the outcome of the last writes, and
// when /healthz should probe it with a write of its own: after a failure,
// at most once a second; after kQuietMs without writes, once per kQuietMs.
class CommitHealth {
 public:
  static constexpr std::int64_t kRetryMs = 1000;
  static constexpr std::int64_t kQuietMs = 10000;

  void note(StoreStatus status) {
    last_ok_ = status == StoreStatus::ok;
    last_write_ms_ = now_ms();
  }
  bool last_ok() const { return last_ok_; }

  // True for one caller at a time, when a probe is due.
  bool probe_due() {
    std::int64_t now = now_ms();
    std::int64_t wait = last_ok_ ? kQuietMs : kRetryMs;
    if (now - last_write_ms_ < wait || now - last_probe_ms_ < wait) return false;
    if (probing_.exchange(true)) return false;
    last_probe_ms_ = now;
    return true;
  }
  void probe_done() { probing_ = false; }

 private:
  static std::int64_t now_ms() {
    return std::chrono::duration_cast<std::chrono::milliseconds>(
               std::chrono::steady_clock::now().time_since_epoch())
        .count();
  }
  std::atomic<bool> last_ok_{true};
  std::atomic<std::int64_t> last_write_ms_{0};
  std::atomic<std::int64_t> last_probe_ms_{0};
  std::atomic<bool> probing_{false};
};

class Database {
 public:
  // `threads` run the requests' transactions (PostgreSQL). With group reads
  // and group commit (SQLite) reads run on the callers' threads and writes
  // on the writer, and the pool keeps a single thread, for the health check.
  Database(Store& store, std::size_t threads)
      : store_(store), pool_(store.group_reads() && store.group_commit() ? 1 : threads), aside_(1) {
    if (store_.group_commit())
      writer_ = std::make_unique<TransactionBatcher>(store_, &Store::run_writes);
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
    if (!writer_) {
      auto job = [this, &work] { return store_.run(Store::Mode::write, work); };
      status = co_await run_on(pool_, job);
    } else {
      status = co_await run_batched(*writer_, work);
    }
    commits_.note(status);
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

  // GET /healthz: the store answers a read, and it can commit: the last
  // write succeeded. When no request has written for a while, or the last
  // write failed, a probe write (rate-limited, one at a time) finds out, so
  // that a full disk shows as 503 and freed space as 200 again without
  // waiting for traffic that a load balancer no longer sends.
  boost::asio::awaitable<bool> healthy() {
    auto job = [this] { return store_.healthy(); };
    bool readable = co_await run_on(pool_, job);
    if (!readable) co_return false;
    if (commits_.probe_due()) {
      auto probe = [](Transaction& tx) {
        // Inserted and deleted again: pages change and the commit is
        // durable, as any request's, and nothing is left behind.
        tx.insert_event(kProbeKey, 0);
        tx.delete_events(kProbeKey);
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
      bool first =
          reads.add(this, TransactionBatcher::Job{
                              [&work](Transaction& tx) { work(tx); },
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
    std::vector<TransactionBatcher::Job> batch = reads.take(this);
    // Counted before stopped_ is read, so that stop() either sees this batch
    // and waits for it, or this batch sees stop() and runs nothing.
    ++batches_running_;
    std::vector<Store::BatchUnit> units;
    TransactionBatcher::run_jobs(batch, units, [this](std::span<Store::BatchUnit> u) {
      if (!stopped_) return store_.run_reads(u);
      for (Store::BatchUnit& unit : u) unit.status = StoreStatus::unavailable;
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
  boost::asio::thread_pool pool_;
  boost::asio::thread_pool aside_;
  std::unique_ptr<TransactionBatcher> writer_;
  std::atomic<bool> stopped_ = false;  // reads after stop() are unavailable
  std::atomic<int> batches_running_ = 0;
  std::unique_ptr<QueuedWriteStore> background_;
};

}  // namespace authd
