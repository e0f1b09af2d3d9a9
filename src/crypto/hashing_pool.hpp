// The bounded pool on which every argon2id computation of the server runs.
// Connection threads submit work and are resumed with the result; when the
// queue is full, submission fails at once (the API answers 503).
#pragma once

#include <atomic>
#include <cstddef>
#include <optional>
#include <string>

#include <boost/asio/awaitable.hpp>
#include <boost/asio/thread_pool.hpp>

#include "crypto/password_hasher.hpp"

namespace authd {

class HashingPool {
 public:
  HashingPool(const PasswordHasher& hasher, std::size_t workers, std::size_t queue_capacity);
  ~HashingPool();

  // std::nullopt when the pool is saturated. A null `phc` verifies against
  // the dummy hash and never matches. `password` is wiped afterwards.
  boost::asio::awaitable<std::optional<VerifyResult>> verify(std::string& password,
                                                             const std::optional<std::string>& phc);

  void stop();  // finishes queued work, then joins

 private:
  bool try_reserve();

  const PasswordHasher& hasher_;
  std::size_t capacity_;  // workers + queue length
  std::atomic<std::size_t> pending_{0};
  boost::asio::thread_pool pool_;
};

}  // namespace authd
