// The bounded pool on which every argon2id computation of the server runs.
// Connection threads submit work and are resumed with the result; when the
// queue is full, submission fails at once (the API answers 503). It times
// every verification it runs, for the verification floor (a failed check
// is answered no sooner than the floor after its verification started:
// crypto/verification_floor.hpp), and measures kinds of hashes for it.
// Kinds of hash much dearer than the server's own verify on one worker at a
// time, so that they never take the whole pool.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>

#include <boost/asio/awaitable.hpp>
#include <boost/asio/strand.hpp>
#include <boost/asio/thread_pool.hpp>

#include "crypto/password_hasher.hpp"
#include "crypto/verification_floor.hpp"

namespace authd {

class HashingPool {
 public:
  HashingPool(const PasswordHasher& hasher, std::size_t workers, std::size_t queue_capacity);
  ~HashingPool();

  // A place in the pool (running or queued), taken before the work that
  // leads to a hash: a login takes its place before its database round trip,
  // so that a login the pool cannot take is refused before it costs anything
  // else. Given back when the hash ends, or when the place is dropped unused.
  class Place {
   public:
    Place(Place&& other) noexcept : pending_(std::exchange(other.pending_, nullptr)) {}
    Place& operator=(Place&&) = delete;
    ~Place() { give_back(); }
    void give_back() {
      if (pending_ != nullptr) std::exchange(pending_, nullptr)->fetch_sub(1);
    }

   private:
    friend class HashingPool;
    explicit Place(std::atomic<std::size_t>& pending) : pending_(&pending) {}
    std::atomic<std::size_t>* pending_;
  };

  // std::nullopt when the pool is saturated (counted as rejected).
  std::optional<Place> reserve();

  // Verifies on the reserved `place`. A null `phc` verifies against the
  // dummy hash and never matches. `password` is wiped afterwards. The
  // result's failure_not_before is when the verification started plus the
  // floor as it stood then.
  boost::asio::awaitable<VerifyResult> verify(Place& place, std::string& password,
                                              const std::optional<std::string>& phc);

  // For a thread that may block (never a connection thread): how long one
  // verification of a wrong password against `phc` takes on a worker, as a
  // login's would; nothing when the pool is saturated.
  std::optional<VerificationFloor::Nanos> time_verification(const std::string& phc);
  // The same for a coroutine (a new hash checked before it is stored).
  boost::asio::awaitable<std::optional<VerificationFloor::Nanos>> timed_verification(
      const std::string& phc);

  // The failures a failed verification of `phc` counts in the throttles
  // (VerificationFloor::charge; a null `phc`, the dummy hash: 1).
  int failure_charge(const std::optional<std::string>& phc) const;

  VerificationFloor& floor() { return floor_; }
  const VerificationFloor& floor() const { return floor_; }

  // A new PHC string for `password`, or std::nullopt when the pool is
  // saturated. `password` is wiped afterwards.
  boost::asio::awaitable<std::optional<std::string>> hash(std::string& password);

  void stop();  // finishes queued work, then joins

  // After a drain that timed out (docs/guide/operations.md, "Stopping"): the
  // requests behind the queued jobs are gone, so from now on a job that
  // starts returns at once without hashing, and stop() waits only for the
  // hashes already running. skipped() counts the jobs skipped.
  void abandon_queued() { abandoned_.store(true); }
  std::uint64_t skipped() const { return skipped_.load(); }

  // For GET /metrics: read without a lock, so only approximately in step.
  std::size_t workers() const { return workers_; }
  std::size_t queue_capacity() const { return capacity_ - workers_; }
  std::size_t busy_workers() const { return busy_.load(std::memory_order_relaxed); }
  std::size_t queue_depth() const;  // jobs waiting for a worker
  // Verifications of costly kinds in their lane, waiting or running.
  std::size_t costly_in_lane() const { return in_lane_.load(std::memory_order_relaxed); }
  std::uint64_t rejected() const { return rejected_.load(std::memory_order_relaxed); }

 private:
  // True (and counted) when the job starting now is to be skipped.
  bool skip_abandoned();

  const PasswordHasher& hasher_;
  VerificationFloor floor_;
  std::size_t workers_;
  std::size_t capacity_;                 // workers + queue length
  std::atomic<std::size_t> pending_{0};  // queued or running
  std::atomic<std::size_t> busy_{0};     // running
  std::atomic<std::uint64_t> rejected_{0};
  std::atomic<bool> abandoned_{false};
  std::atomic<std::uint64_t> skipped_{0};
  std::atomic<std::size_t> in_lane_{0};  // costly verifications, waiting or running
  boost::asio::thread_pool pool_;
  // Verifications of the costly kinds (VerificationFloor::one_at_a_time):
  // one at a time, on whichever worker is free, the others waiting in
  // this strand's queue without holding a worker, and those of a kind
  // known to be costly without a place in the pool either (interface.md
  // 10.5.5): a line of them never turns the other logins away. The connection caps and the
  // throttles, which charge each of their failures by its cost, bound the line.
  using Strand = boost::asio::strand<boost::asio::thread_pool::executor_type>;
  Strand one_at_a_time_;
};

}  // namespace authd
