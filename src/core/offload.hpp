// Runs a blocking function on another thread pool and resumes the calling
// coroutine on its own executor with the result. This is how connection
// threads hand work (password hashing, database transactions) to the pools
// that own it, without ever blocking themselves.
#pragma once

#include <exception>
#include <type_traits>
#include <utility>  // before Boost 1.74 asio/awaitable.hpp, which misses it
#include <utility>

#include <boost/asio/async_result.hpp>
#include <boost/asio/awaitable.hpp>
#include <boost/asio/execution/outstanding_work.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/prefer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/thread_pool.hpp>
#include <boost/asio/use_awaitable.hpp>

namespace authd {

namespace asio = boost::asio;

// `Result` must be default-constructible; exceptions thrown by `fn` are
// rethrown in the awaiting coroutine.
//
// GCC 12 destroys some temporaries of a co_await full-expression twice, so
// in this project a co_await expression holds only named objects or
// trivially destructible temporaries (see
// docs/design/architecture-threads.md#gcc-12-coroutine-rule).
//
// `Pool` is a thread pool, or an executor that runs on one (a strand of a
// pool's executor: its jobs run one at a time).
template <class Pool, class Fn, class Result = std::invoke_result_t<Fn&>>
asio::awaitable<Result> run_on(Pool& pool, Fn fn) {
  // Tracked: while the job runs elsewhere, the caller's io_context still has
  // outstanding work, so a draining server does not stop under a request.
  auto current = co_await asio::this_coro::executor;
  auto caller = asio::prefer(current, asio::execution::outstanding_work.tracked);
  auto initiation = [&pool, caller](auto handler, Fn work) {
    asio::post(pool, [caller, fn = std::move(work), handler = std::move(handler)]() mutable {
      std::exception_ptr error;
      Result result{};
      try {
        result = fn();
      } catch (...) {
        error = std::current_exception();
      }
      asio::post(caller,
                 [handler = std::move(handler), error, result = std::move(result)]() mutable {
                   std::move(handler)(error, std::move(result));
                 });
    });
  };
  Result result = co_await asio::async_initiate<decltype(asio::use_awaitable),
                                                void(std::exception_ptr, Result)>(
      initiation, asio::use_awaitable, fn);
  co_return result;
}

}  // namespace authd
