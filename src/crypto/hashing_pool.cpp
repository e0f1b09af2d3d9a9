#include "crypto/hashing_pool.hpp"

#include <sodium.h>

#include "core/offload.hpp"
#include "core/wipe.hpp"

namespace authd {

HashingPool::HashingPool(const PasswordHasher& hasher, std::size_t workers,
                         std::size_t queue_capacity)
    : hasher_(hasher), capacity_(workers + queue_capacity), pool_(workers) {}

HashingPool::~HashingPool() { stop(); }

void HashingPool::stop() { pool_.join(); }

bool HashingPool::try_reserve() {
  std::size_t current = pending_.load();
  do {
    if (current >= capacity_) return false;
  } while (!pending_.compare_exchange_weak(current, current + 1));
  return true;
}

boost::asio::awaitable<std::optional<VerifyResult>> HashingPool::verify(
    std::string& password, const std::optional<std::string>& phc) {
  if (!try_reserve()) {
    wipe(password);
    co_return std::nullopt;
  }
  auto job = [this, &password, &phc]() {
    struct Release {
      std::atomic<std::size_t>& pending;
      ~Release() { pending.fetch_sub(1); }
    } release{pending_};
    VerifyResult result;
    if (phc) {
      result = hasher_.verify(password, *phc);
    } else {
      hasher_.verify_dummy(password);
    }
    return result;
  };
  // The caller's `password` and `phc` outlive this suspended coroutine, so
  // the job may borrow them.
  WipeOnExit wipe_password(password);  // also when the job throws
  VerifyResult result = co_await run_on(pool_, job);
  co_return result;
}

}  // namespace authd
