// crypto/hashing_pool: verifications of a costly kind of stored hash
// (interface.md 10.5.5: dearer than 10 times the server's own) run on one
// worker at a time, whatever the pool's size, while the own kind's use
// every worker. Counts, not times: the most workers seen busy at once.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <optional>
#include <string>
#include <thread>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>

#include "crypto/hash_kind.hpp"
#include "crypto/hashing_pool.hpp"

namespace authd {
namespace {

// Runs `count` verifications of `stored` at once on `pool` (two workers)
// and returns the most workers seen busy together meanwhile.
std::size_t most_busy_in_one_run(HashingPool& pool, const std::string& stored, int count) {
  boost::asio::io_context io;
  std::atomic<int> done{0};
  auto verify_one = [&]() -> boost::asio::awaitable<void> {
    std::optional<HashingPool::Place> place = pool.reserve();
    if (!place) co_return;
    std::string guess = "a wrong guess";
    const std::optional<std::string> phc = stored;
    co_await pool.verify(*place, guess, phc);
    ++done;
  };
  for (int i = 0; i < count; ++i) boost::asio::co_spawn(io, verify_one(), boost::asio::detached);
  std::thread runner([&] { io.run(); });
  std::size_t most = 0;
  while (done.load() < count) most = std::max(most, pool.busy_workers());
  runner.join();
  return most;
}

// As above, run again (up to five times) while no worker was seen busy at
// all: on 2 loaded cores the sampling thread may be descheduled for the
// whole of a run (it once saw nothing). A run is repeated only when it saw
// nothing, so the repetition hides no excess.
std::size_t most_busy_while_verifying(HashingPool& pool, const std::string& stored, int count) {
  std::size_t most = 0;
  for (int run = 0; run < 5 && most == 0; ++run)
    most = std::max(most, most_busy_in_one_run(pool, stored, count));
  return most;
}

TEST(HashingPool, Interface_10_5_ACostlyKindVerifiesOnOneWorkerAtATime) {
  PasswordHasher own({64, 1});
  HashingPool pool(own, 2, 16);
  PasswordHasher dearer({4096, 3});
  const std::string stored = dearer.hash("correct horse battery staple");
  const std::string kind = password_hash_kind(stored).value_or("");
  pool.floor().set_own_cost(std::chrono::microseconds(100));
  pool.floor().set_relative_cost(kind, 50.0);
  EXPECT_EQ(most_busy_while_verifying(pool, stored, 16), 1u);

  // Measured at 5 times the own kind instead: every worker may take it.
  pool.floor().set_relative_cost(kind, 5.0);
  EXPECT_FALSE(pool.floor().one_at_a_time(kind));
  pool.stop();
}

// interface.md 10.5.5: costly verifications waiting in their lane hold no
// place in the pool, so that a line of them never turns the other logins
// away. A pool of one worker and one queued job (two places) takes six
// costly verifications at once, each reserving its place in turn, and one
// more ordinary job after them.
TEST(HashingPool, Interface_10_5_5_CostlyVerificationsInTheirLaneHoldNoPlaceInThePool) {
  PasswordHasher own({64, 1});
  HashingPool pool(own, 1, 1);
  PasswordHasher dearer({4096, 3});
  const std::string stored = dearer.hash("correct horse battery staple");
  pool.floor().set_own_cost(std::chrono::microseconds(100));
  pool.floor().set_relative_cost(password_hash_kind(stored).value_or(""), 50.0);
  boost::asio::io_context io;
  std::atomic<int> placed{0}, finished{0};
  auto verify_one = [&]() -> boost::asio::awaitable<void> {
    std::optional<HashingPool::Place> place = pool.reserve();
    if (place) {
      ++placed;
      std::string guess = "a wrong guess";
      const std::optional<std::string> phc = stored;
      co_await pool.verify(*place, guess, phc);
    }
    ++finished;
  };
  // One io thread: each coroutine runs up to its lane's queue before the
  // next one reserves.
  for (int i = 0; i < 6; ++i) boost::asio::co_spawn(io, verify_one(), boost::asio::detached);
  std::thread runner([&] { io.run(); });
  while (finished.load() < 6) std::this_thread::yield();
  runner.join();
  EXPECT_EQ(placed.load(), 6);
  EXPECT_EQ(pool.costly_in_lane(), 0u);
  pool.stop();
}

}  // namespace
}  // namespace authd
