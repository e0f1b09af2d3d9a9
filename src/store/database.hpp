// The asynchronous face of a Store for the server's coroutines: what the
// domain (auth/, api/) asks of the database. Transactions run off the
// connection threads, so that an fsync never blocks one; how they are
// scheduled (group commit on SQLite, pools and shared round trips on
// PostgreSQL) is ScheduledDatabase's business (store/batching/), which the
// domain neither sees nor compiles.
#pragma once

#include <functional>
#include <string>
#include <utility>  // before Boost 1.74 asio/awaitable.hpp, which misses it
#include <vector>

#include <boost/asio/awaitable.hpp>

#include "store/store.hpp"

namespace authd {

class Database {
 public:
  virtual ~Database() = default;

  // `work(Transaction&)` runs on a database thread while the caller's
  // coroutine is suspended, so it may capture the caller's locals by
  // reference. It is taken as a named lvalue (see core/offload.hpp on
  // GCC 12) and must outlive the co_await.
  template <class Work>
  boost::asio::awaitable<StoreStatus> write(Work& work) {
    return write_work(std::ref(work));
  }

  // A write that may share its transaction and COMMIT with others (logout,
  // /forgot): on PostgreSQL the writes queued while a batch runs go
  // together in the next one (Store::run_together); on SQLite every write
  // does already. `work` may run twice (once in a batch undone as a whole,
  // then alone), so it may only assign its results. It must lock no row
  // but its own (another instance's batch could hold it while waiting on
  // one of ours), and name in `lock_keys` every throttling key it counts:
  // a batch locks all of its units' keys first, in one order, and it may
  // add events only for those keys. Its statements may be interleaved with
  // the rest of the batch's, but the units that name one key (one client
  // address's requests) count it in the batch's order, exactly as if each
  // ran after the other (TransactionUnit::lock_keys).
  template <class Work>
  boost::asio::awaitable<StoreStatus> write_together(Work& work,
                                                     std::vector<std::string> lock_keys = {}) {
    return write_together_work(std::ref(work), std::move(lock_keys));
  }

  // Gathered per turn of the calling connection thread's event loop and run
  // together there, so each read still sees every commit that had returned
  // before it was asked for.
  template <class Work>
  boost::asio::awaitable<StoreStatus> read(Work& work) {
    return read_work(std::ref(work));
  }

  // A read that visits many rows or runs a statement for each (the /metrics
  // counts, the second factors of an admin page of accounts) runs on a side
  // thread, so that it never holds up the requests' reads and the
  // connection threads that run them.
  template <class Work>
  boost::asio::awaitable<StoreStatus> read_aside(Work& work) {
    return read_aside_work(std::ref(work));
  }

  // GET /healthz: the store answers a read, and it can commit.
  virtual boost::asio::awaitable<bool> healthy() = 0;

  // For threads that are not coroutines and may block (the outbox and
  // webhook workers, housekeeping).
  virtual Store& for_background_threads() = 0;

  // Afterwards queued reads and writes answer unavailable.
  virtual void stop() = 0;

 protected:
  using TransactionWork = std::function<void(Transaction&)>;
  virtual boost::asio::awaitable<StoreStatus> write_work(TransactionWork work) = 0;
  virtual boost::asio::awaitable<StoreStatus> write_together_work(
      TransactionWork work, std::vector<std::string> lock_keys) = 0;
  virtual boost::asio::awaitable<StoreStatus> read_work(TransactionWork work) = 0;
  virtual boost::asio::awaitable<StoreStatus> read_aside_work(TransactionWork work) = 0;
};

}  // namespace authd
