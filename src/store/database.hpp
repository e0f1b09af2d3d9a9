// The asynchronous face of a Store for the server: transactions run on a
// small dedicated thread pool, so that an fsync or a slow query never blocks
// a connection thread.
#pragma once

#include <cstddef>
#include <functional>

#include <boost/asio/awaitable.hpp>
#include <boost/asio/thread_pool.hpp>

#include "store/store.hpp"

namespace authd {

class Database {
 public:
  Database(Store& store, std::size_t threads) : store_(store), pool_(threads) {}
  ~Database() { pool_.join(); }

  // `work` runs on a database thread; the caller's coroutine frame stays
  // alive meanwhile, so `work` may capture the caller's locals by reference.
  boost::asio::awaitable<StoreStatus> write(std::function<void(Transaction&)> work);
  boost::asio::awaitable<StoreStatus> read(std::function<void(Transaction&)> work);
  boost::asio::awaitable<bool> healthy();

  Store& store() { return store_; }
  void stop() { pool_.join(); }

 private:
  Store& store_;
  boost::asio::thread_pool pool_;
};

}  // namespace authd
