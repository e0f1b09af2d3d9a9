#include "store/batching/scheduled_database.hpp"

#include <exception>
#include <utility>

#include <boost/asio/associated_executor.hpp>
#include <boost/asio/async_result.hpp>
#include <boost/asio/dispatch.hpp>
#include <boost/asio/execution/context.hpp>
#include <boost/asio/execution/outstanding_work.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/prefer.hpp>
#include <boost/asio/query.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>

#include "core/offload.hpp"
#include "store/batching/batched_store.hpp"
#include "store/batching/loop_reads.hpp"
#include "store/batching/queued_write_store.hpp"
#include "store/batching/transaction_batcher.hpp"

namespace authd {

namespace asio = boost::asio;

ScheduledDatabase::ScheduledDatabase(Store& store, std::size_t threads)
    : store_(store), batched_(dynamic_cast<BatchedStore*>(&store)) {
  if (batched_ != nullptr) {
    writer_ = std::make_unique<TransactionBatcher>(*batched_);
  } else {
    pool_.emplace(threads);
    together_ = std::make_unique<TransactionBatcher>(
        [&store](std::span<TransactionUnit> units) { store.run_together(units); }, kTogetherThreads,
        kTogetherMaxBatch);
  }
  background_ = std::make_unique<QueuedWriteStore>(store_, writer_.get());
}

ScheduledDatabase::~ScheduledDatabase() { stop(); }

Store& ScheduledDatabase::for_background_threads() { return *background_; }

// The virtual entry points are plain functions: each hands its work to the
// one coroutine that runs it, so a call costs one coroutine frame, as a
// template calling that coroutine directly would.
asio::awaitable<StoreStatus> ScheduledDatabase::write_work(TransactionWork work) {
  return write_alone(std::move(work));
}

asio::awaitable<StoreStatus> ScheduledDatabase::write_together_work(
    TransactionWork work, std::vector<std::string> lock_keys) {
  if (writer_) return write_alone(std::move(work));
  return write_in_batch(std::move(work), std::move(lock_keys));
}

asio::awaitable<StoreStatus> ScheduledDatabase::read_work(TransactionWork work) {
  return run_in_loop_batch(std::move(work));
}

asio::awaitable<StoreStatus> ScheduledDatabase::read_aside_work(TransactionWork work) {
  return read_on(aside_, std::move(work));
}

asio::awaitable<StoreStatus> ScheduledDatabase::write_alone(TransactionWork work) {
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

asio::awaitable<StoreStatus> ScheduledDatabase::write_in_batch(TransactionWork work,
                                                               std::vector<std::string> lock_keys) {
  StoreStatus status = co_await run_batched(*together_, work, std::move(lock_keys));
  commits_.note(status, CommitHealth::steady_now_ms());
  co_return status;
}

asio::awaitable<bool> ScheduledDatabase::healthy() {
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

void ScheduledDatabase::stop() {
  stopped_ = true;
  for (int running = batches_running_; running != 0; running = batches_running_)
    batches_running_.wait(running);
  if (writer_) writer_->stop();
  if (together_) together_->stop();
  if (pool_) pool_->join();
  aside_.join();
}

// Queues `work` on a batching thread; the coroutine resumes on its own
// executor once the batch has finished (for writes: committed).
asio::awaitable<StoreStatus> ScheduledDatabase::run_batched(TransactionBatcher& batcher,
                                                            const TransactionWork& work,
                                                            std::vector<std::string> lock_keys) {
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
// caller through its own executor: in place when that is where the run is
// (a connection thread's loop), posted when not (another strand).
asio::awaitable<StoreStatus> ScheduledDatabase::run_in_loop_batch(TransactionWork work) {
  auto executor = co_await asio::this_coro::executor;
  LoopReads& reads = asio::use_service<LoopReads>(asio::query(executor, asio::execution::context));
  auto initiation = [this, executor, &reads, &work](auto handler) {
    auto resume_on = asio::get_associated_executor(handler, executor);
    auto shared = std::make_shared<decltype(handler)>(std::move(handler));
    bool first =
        reads.add(this, BatchJob{[&work](Transaction& tx) { work(tx); },
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

void ScheduledDatabase::run_loop_batch(LoopReads& reads) {
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

asio::awaitable<StoreStatus> ScheduledDatabase::read_on(asio::thread_pool& pool,
                                                        TransactionWork work) {
  auto job = [this, &work] { return store_.run(Store::Mode::read, work); };
  StoreStatus status = co_await run_on(pool, job);
  co_return status;
}

}  // namespace authd
