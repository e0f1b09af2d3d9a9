#include "crypto/hashing_pool.hpp"

#include <sodium.h>

#include <chrono>
#include <future>

#include <boost/asio/post.hpp>

#include "core/offload.hpp"
#include "core/scheduling.hpp"
#include "core/wipe.hpp"
#include "crypto/argon2_memory.hpp"
#include "crypto/hash_kind.hpp"
#include "crypto/random.hpp"

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

// Counts a costly verification in its lane while it waits or runs.
struct InLane {
  explicit InLane(std::atomic<std::size_t>& n) : count(n) { count.fetch_add(1); }
  InLane(const InLane&) = delete;
  InLane& operator=(const InLane&) = delete;
  ~InLane() { count.fetch_sub(1); }
  std::atomic<std::size_t>& count;
};

// Once per worker thread: keep its argon2 memory warm across hashes (when the
// program installed that: crypto/argon2_memory.hpp), and share the cores
// as batch work: a woken connection thread preempts a hash, and under
// saturation the hashes keep their equal share (core/scheduling.hpp).
void prepare_worker_thread() {
  thread_local bool prepared = false;
  if (prepared) return;
  prepared = true;
  reuse_argon2_memory_on_this_thread();
  share_cores_as_batch_work();
}

}  // namespace

HashingPool::HashingPool(const PasswordHasher& hasher, std::size_t workers,
                         std::size_t queue_capacity)
    : hasher_(hasher),
      floor_(hasher.own_kind()),
      workers_(workers),
      capacity_(workers + queue_capacity),
      pool_(workers),
      one_at_a_time_(boost::asio::make_strand(pool_.get_executor())) {}

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

int HashingPool::failure_charge(const std::optional<std::string>& phc) const {
  return phc ? floor_.charge(password_hash_kind(*phc).value_or("")) : 1;
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
  const std::string kind = phc ? password_hash_kind(*phc).value_or("") : hasher_.own_kind();
  auto job = [this, &place, &password, &phc, &kind]() {
    Running running{busy_, place};
    VerifyResult result;
    if (skip_abandoned()) return result;  // nobody waits for it: never a match
    prepare_worker_thread();
    // The floor as it stands before this verification: its own time is
    // never part of its own floor.
    VerificationFloor::Nanos floor = floor_.current();
    auto started = std::chrono::steady_clock::now();
    if (phc) {
      result = hasher_.verify(password, *phc);
    } else {
      hasher_.verify_dummy(password);
    }
    auto elapsed = std::chrono::steady_clock::now() - started;
    result.failure_not_before = started + floor;
    // A match that was re-hashed took two hashes: no measure of one.
    if (result.upgraded_hash.empty()) floor_.observe(kind, elapsed, floor);
    return result;
  };
  // The caller's `place`, `password` and `phc` outlive this suspended
  // coroutine, so the job may borrow them.
  WipeOnExit wipe_password(password);  // also when the job throws
  VerifyResult result;
  if (floor_.one_at_a_time(kind)) {
    // A kind known to be costly gives its place back at once: the lane's
    // line is not the pool's. One not measured yet keeps it, as any
    // verification does, until its cost is known (a start measures it).
    std::optional<double> relative = floor_.relative_cost(kind);
    if (relative && *relative > VerificationFloor::kOneWorkerAbove) place.give_back();
    InLane in_lane{in_lane_};
    VerifyResult verified = co_await run_on(one_at_a_time_, job);
    result = std::move(verified);
  } else {
    VerifyResult verified = co_await run_on(pool_, job);
    result = std::move(verified);
  }
  co_return result;
}

boost::asio::awaitable<std::optional<VerificationFloor::Nanos>> HashingPool::timed_verification(
    const std::string& phc) {
  std::optional<Place> place = reserve();
  if (!place) co_return std::nullopt;
  auto job = [this, &place, &phc]() {
    Running running{busy_, *place};
    prepare_worker_thread();
    std::string wrong = new_secret_token("measure_");
    auto started = std::chrono::steady_clock::now();
    [[maybe_unused]] VerifyResult ignored = hasher_.verify(wrong, phc);
    return std::optional<VerificationFloor::Nanos>(std::chrono::steady_clock::now() - started);
  };
  // A kind being checked is not known yet: one at a time, like its logins.
  std::optional<VerificationFloor::Nanos> took = co_await run_on(one_at_a_time_, job);
  co_return took;
}

std::optional<VerificationFloor::Nanos> HashingPool::time_verification(const std::string& phc) {
  std::optional<Place> place = reserve();
  if (!place) return std::nullopt;
  std::promise<VerificationFloor::Nanos> timed;
  auto measure = [this, &place, &phc, &timed] {
    try {
      VerificationFloor::Nanos took{};
      {
        // Given back before the caller is told: the caller owns `place`.
        Running running{busy_, *place};
        prepare_worker_thread();
        std::string wrong = new_secret_token("measure_");
        auto started = std::chrono::steady_clock::now();
        [[maybe_unused]] VerifyResult ignored = hasher_.verify(wrong, phc);
        took = std::chrono::steady_clock::now() - started;
      }
      timed.set_value(took);
    } catch (...) {
      timed.set_exception(std::current_exception());
    }
  };
  if (floor_.one_at_a_time(password_hash_kind(phc).value_or(""))) {
    boost::asio::post(one_at_a_time_, measure);
  } else {
    boost::asio::post(pool_, measure);
  }
  return timed.get_future().get();
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
