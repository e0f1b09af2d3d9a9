// The asynchronous face of a Store for the server: transactions run on a
// small dedicated thread pool, so that an fsync or a slow query never blocks
// a connection thread.
#pragma once

#include <cstddef>
#include <functional>

#include <boost/asio/awaitable.hpp>
#include <boost/asio/thread_pool.hpp>

#include "core/offload.hpp"
#include "store/store.hpp"

namespace authd {

class Database {
 public:
  Database(Store& store, std::size_t threads) : store_(store), pool_(threads) {}
  ~Database() { pool_.join(); }

  // `work(Transaction&)` runs on a database thread while the caller's
  // coroutine is suspended, so it may capture the caller's locals by
  // reference. It is taken as a named lvalue (see offload.hpp on GCC 12).
  template <class Work>
  boost::asio::awaitable<StoreStatus> write(Work& work) {
    auto job = [this, &work] { return store_.run(Store::Mode::write, work); };
    StoreStatus status = co_await run_on(pool_, job);
    co_return status;
  }

  template <class Work>
  boost::asio::awaitable<StoreStatus> read(Work& work) {
    auto job = [this, &work] { return store_.run(Store::Mode::read, work); };
    StoreStatus status = co_await run_on(pool_, job);
    co_return status;
  }

  boost::asio::awaitable<bool> healthy() {
    auto job = [this] { return store_.healthy(); };
    bool ok = co_await run_on(pool_, job);
    co_return ok;
  }

  void stop() { pool_.join(); }

 private:
  Store& store_;
  boost::asio::thread_pool pool_;
};

}  // namespace authd
