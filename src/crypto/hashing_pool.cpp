#include "crypto/hashing_pool.hpp"

#include <sodium.h>

#include "core/offload.hpp"
#include "core/scheduling.hpp"
#include "core/wipe.hpp"

namespace authd {
namespace {

// Counts a job as running while it runs, and gives its place in the pool
// back when it ends, however it ends.
struct Running {
  Running(std::atomic<std::size_t>& b, HashingPool::Place& p) : busy(b), place(p) {
    busy.fetch_add(1);
  }
  ~Running() {
    busy.fetch_sub(1);
    place.give_back();
  }
  std::atomic<std::size_t>& busy;
  HashingPool::Place& place;
};

// Once per worker thread: keep its argon2 memory warm across hashes, and let
// every other thread of the server run first when they compete for a core
// (core/scheduling.hpp).
void prepare_worker_thread() {
  thread_local bool prepared = false;
  if (prepared) return;
  prepared = true;
  reuse_argon2_memory_on_this_thread();
  yield_to_other_threads();
}

}  // namespace

HashingPool::HashingPool(const PasswordHasher& hasher, std::size_t workers,
                         std::size_t queue_capacity)
    : hasher_(hasher), workers_(workers), capacity_(workers + queue_capacity), pool_(workers) {}

HashingPool::~HashingPool() { stop(); }

void HashingPool::stop() { pool_.join(); }

bool HashingPool::skip_abandoned() {
  if (!abandoned_.load()) return false;
  skipped_.fetch_add(1);
  return true;
}

std::size_t HashingPool::queue_depth() const {
  std::size_t pending = pending_.load(std::memory_order_relaxed);
  std::size_t busy = busy_.load(std::memory_order_relaxed);
  return pending > busy ? pending - busy : 0;
}

std::optional<HashingPool::Place> HashingPool::reserve() {
  std::size_t current = pending_.load();
  do {
    if (current >= capacity_) {
      rejected_.fetch_add(1, std::memory_order_relaxed);
      return std::nullopt;
    }
  } while (!pending_.compare_exchange_weak(current, current + 1));
  return Place(pending_);
}

boost::asio::awaitable<VerifyResult> HashingPool::verify(Place& place, std::string& password,
                                                         const std::optional<std::string>& phc) {
  auto job = [this, &place, &password, &phc]() {
    Running running{busy_, place};
    VerifyResult result;
    if (skip_abandoned()) return result;  // nobody waits for it: never a match
    prepare_worker_thread();
    if (phc) {
      result = hasher_.verify(password, *phc);
    } else {
      hasher_.verify_dummy(password);
    }
    return result;
  };
  // The caller's `place`, `password` and `phc` outlive this suspended
  // coroutine, so the job may borrow them.
  WipeOnExit wipe_password(password);  // also when the job throws
  VerifyResult result = co_await run_on(pool_, job);
  co_return result;
}

boost::asio::awaitable<std::optional<std::string>> HashingPool::hash(std::string& password) {
  std::optional<Place> place = reserve();
  if (!place) {
    wipe(password);
    co_return std::nullopt;
  }
  auto job = [this, &place, &password]() {
    Running running{busy_, *place};
    if (skip_abandoned()) return std::string();  // nobody waits for it
    prepare_worker_thread();
    return hasher_.hash(password);
  };
  WipeOnExit wipe_password(password);  // also when the job throws
  std::string phc = co_await run_on(pool_, job);
  co_return phc;
}

}  // namespace authd
