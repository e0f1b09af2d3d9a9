// The connection threads: one io_context per thread. A connection lives on
// one thread for its whole life, so its handlers need no strand, and each
// thread waits on its own epoll instead of sharing one scheduler's lock and
// queue with the others
// (docs/design/performance-choices.md#an-io_context-per-connection-thread).
#pragma once

#include <algorithm>
#include <cstddef>
#include <memory>
#include <thread>
#include <vector>

#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>

namespace authd {

class IoThreads {
 public:
  explicit IoThreads(std::size_t threads) {
    for (std::size_t i = 0; i < std::max<std::size_t>(threads, 1); ++i)
      // 1: run by one thread, which lets Asio skip work for other threads
      // (posting from the database and hashing threads stays safe).
      contexts_.push_back(std::make_unique<boost::asio::io_context>(1));
    // Until drain, the other contexts wait for connections even when none
    // has come yet.
    for (std::size_t i = 1; i < contexts_.size(); ++i)
      guards_.push_back(boost::asio::make_work_guard(*contexts_[i]));
  }

  // The other contexts go first: a connection left on one of them by a
  // drain time-out is destroyed with it, and on its way out touches the
  // server's state, whose acceptor and drain timer belong to the main
  // context.
  ~IoThreads() {
    guards_.clear();
    while (!contexts_.empty()) contexts_.pop_back();
  }
  IoThreads(const IoThreads&) = delete;
  IoThreads& operator=(const IoThreads&) = delete;

  // The calling thread's context: the accept loop, signals and timers run
  // there, beside its share of the connections.
  boost::asio::io_context& main() { return *contexts_.front(); }

  // The context of the next connection, in turn. The accept loop's only.
  boost::asio::io_context& next() { return *contexts_[next_++ % contexts_.size()]; }

  // Runs every context, the first on the calling thread; returns once all
  // of them have run out of work (after release(), or stop()).
  void run() {
    std::vector<std::thread> threads;
    for (std::size_t i = 1; i < contexts_.size(); ++i)
      threads.emplace_back([context = contexts_[i].get()] { context->run(); });
    main().run();
    for (auto& thread : threads) thread.join();
  }

  // Lets the other contexts return once their connections are gone. From
  // any thread.
  void release() {
    boost::asio::post(main(), [this] { guards_.clear(); });
  }

  // Stops every context now. From any thread.
  void stop() {
    for (auto& context : contexts_) context->stop();
  }

 private:
  std::vector<std::unique_ptr<boost::asio::io_context>> contexts_;
  std::vector<boost::asio::executor_work_guard<boost::asio::io_context::executor_type>> guards_;
  std::size_t next_ = 0;
};

}  // namespace authd
