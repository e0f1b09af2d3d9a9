// Delivers the mail outbox (decisions.md 6 /forgot 3-4): claims a due mail,
// mints its reset token in the same transaction, sends it, marks it sent
// (retrying that mark while the database is unreachable, so that a mail the
// relay accepted is not sent again) or schedules a retry with capped
// exponential backoff (or drops it when the relay refused its recipient for
// good). Runs on its own thread, so SMTP latency never reaches a request.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>

#include "core/duration.hpp"
#include "core/periodic_thread.hpp"
#include "mail/transport.hpp"
#include "store/store.hpp"

namespace authd {

struct OutboxSettings {
  std::string from;
  std::string public_url;
  Duration reset_token_lifetime = std::chrono::minutes(30);
  Duration poll_interval = std::chrono::seconds(1);
  Duration first_retry = std::chrono::seconds(2);
  Duration max_retry = std::chrono::minutes(10);
  // How long a claimed mail stays ours; after a crash it is retried once
  // the lease runs out.
  Duration lease = std::chrono::minutes(2);
};

class OutboxWorker {
 public:
  OutboxWorker(Store& store, MailTransport& transport, OutboxSettings settings);

  void start() { thread_.start(); }
  void stop() { thread_.stop(); }

  // One delivery attempt of the oldest due mail; false when none was due.
  bool deliver_one();

  // Delivery attempts so far, for GET /metrics.
  std::uint64_t sent() const { return sent_.load(std::memory_order_relaxed); }
  std::uint64_t failures() const { return failures_.load(std::memory_order_relaxed); }  // retried
  std::uint64_t rejected() const { return rejected_.load(std::memory_order_relaxed); }  // dropped

  // Delay before attempt number `attempts + 1`.
  static Duration backoff(int attempts, Duration first, Duration max);

  // Between attempts to mark a sent mail sent (see mark_sent).
  static constexpr Duration kFirstMarkRetry = std::chrono::milliseconds(250);
  static constexpr Duration kMaxMarkRetry = std::chrono::seconds(10);

 private:
  void deliver_due();
  bool mark_sent(const OutboxRecord& mail, Millis lease_until);

  Store& store_;
  MailTransport& transport_;
  OutboxSettings settings_;
  PeriodicThread thread_;
  std::atomic<std::uint64_t> sent_{0};
  std::atomic<std::uint64_t> failures_{0};
  std::atomic<std::uint64_t> rejected_{0};
};

}  // namespace authd
