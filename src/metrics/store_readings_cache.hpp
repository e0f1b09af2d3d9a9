// The store's readings for GET /metrics (outbox backlog, live sessions,
// the webhook queue, the events written),
// cached for a few seconds with a single flight: /metrics needs no
// authentication, and each reading is a count(*) on a database thread shared
// with logins, so a flood of scrapes must not turn into a flood of queries.
// At most one scrape at a time queries the store; the others get the last
// readings (at most `max_age` old, or one query older while a refresh runs),
// and only when there are none yet do they wait for the query in flight.
//
// The clock is injected so that the unit test needs no sleeps.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <mutex>
#include <optional>
#include <utility>

namespace authd {

struct StoreReadings {
  bool up = false;  // the store answered
  std::int64_t pending_mails = 0;
  std::int64_t live_sessions = 0;
  std::int64_t pending_webhooks = 0;  // neither delivered nor dead
  std::int64_t dead_webhooks = 0;
  std::int64_t events_written = 0;  // the trail's newest seq
};

class StoreReadingsCache {
 public:
  using Clock = std::function<std::chrono::steady_clock::time_point()>;
  static constexpr std::chrono::seconds kDefaultMaxAge{5};

  explicit StoreReadingsCache(std::chrono::steady_clock::duration max_age = kDefaultMaxAge,
                              Clock clock = &std::chrono::steady_clock::now)
      : max_age_(max_age), clock_(std::move(clock)) {}
  StoreReadingsCache(const StoreReadingsCache&) = delete;
  StoreReadingsCache& operator=(const StoreReadingsCache&) = delete;

  // What one scrape does: `use` the readings given, `refresh` (query the
  // store, then call complete() or, if the query threw, abandon()), or
  // `wait` a moment and ask again (another scrape's first query is running).
  enum class Action { use, refresh, wait };
  struct Ticket {
    Action action = Action::wait;
    StoreReadings readings;  // for `use`
  };

  Ticket begin() {
    std::lock_guard lock(mutex_);
    if (value_ && (refreshing_ || clock_() - taken_ < max_age_)) return {Action::use, *value_};
    if (refreshing_) return {Action::wait, {}};
    refreshing_ = true;
    return {Action::refresh, {}};
  }

  void complete(const StoreReadings& readings) {
    std::lock_guard lock(mutex_);
    value_ = readings;
    taken_ = clock_();
    refreshing_ = false;
  }

  void abandon() {
    std::lock_guard lock(mutex_);
    refreshing_ = false;
  }

 private:
  const std::chrono::steady_clock::duration max_age_;
  const Clock clock_;
  std::mutex mutex_;
  std::optional<StoreReadings> value_;
  std::chrono::steady_clock::time_point taken_{};
  bool refreshing_ = false;
};

}  // namespace authd
