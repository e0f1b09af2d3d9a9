// Delivers the webhook queue (interface.md 14.4): claims a due delivery
// under a lease, POSTs its event as JSON (event_json, the same shape as GET
// /admin/events), signed as Standard Webhooks says, and marks it delivered
// on a 2xx. Anything else (another status, a refused connection, a
// time-out) is a failed attempt: retried with capped exponential backoff,
// and dead after `max_attempts` (kept for `authd webhooks dead|retry`).
//
// At least once: the claim and the mark are two transactions, so an
// instance that dies between the receiver's 2xx and the mark leaves the
// delivery to be claimed again once its lease has run out (by this or
// another instance). A time-out below the lease (checked at start) keeps a
// live attempt from outlasting its lease. Runs on threads of its own, so a
// slow receiver never reaches a request.
//
// The queue is bounded (`queue_max`, --webhook-queue-max): once a second
// a thread of its own drops the oldest pending login.failed deliveries
// past it, counts them and logs `webhook_deliveries_dropped`; other types
// are never dropped, and a queue over the bound with none of them left is
// logged once (`webhook_queue_over_max`) until it is back under.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/duration.hpp"
#include "core/periodic_thread.hpp"
#include "store/store.hpp"
#include "webhooks/http_post.hpp"
#include "webhooks/signature.hpp"

namespace authd {

struct WebhookSettings {
  std::string url;
  int max_attempts = 12;                           // --webhook-max-attempts
  Duration timeout = std::chrono::seconds(10);     // --webhook-timeout
  Duration lease = std::chrono::minutes(1);        // --webhook-claim-lease
  Duration first_retry = std::chrono::seconds(5);  // --webhook-first-retry
  Duration max_retry = std::chrono::hours(1);
  Duration poll_interval = std::chrono::seconds(1);
  std::size_t concurrency = 4;      // deliveries at once
  std::int64_t queue_max = 10'000;  // --webhook-queue-max
  std::string user_agent = "authd";
};

// How one attempt is sent (http_post; a test may pass another).
using WebhookPoster = std::function<HttpPostOutcome(const std::string& url, const HttpHeaderList&,
                                                    const std::string& body, Duration timeout)>;

// interface.md 14.4.3: records in the database whether webhooks are on
// (`on`: this instance has --webhook-url), which every writer of an event
// reads; warns when this turns them off for every instance. False when
// the store failed.
bool record_webhooks_state(Store& store, bool on);

class WebhookWorker {
 public:
  WebhookWorker(Store& store, WebhookKey key, WebhookSettings settings,
                WebhookPoster poster = &http_post);

  void start();
  void stop();

  // One delivery attempt; false when none was due (or the store failed).
  bool deliver_one();
  // One pass of the queue's bound; returns the deliveries dropped.
  std::int64_t trim_queue();

  // Attempts of this process so far, for GET /metrics.
  std::uint64_t delivered() const { return delivered_.load(std::memory_order_relaxed); }
  std::uint64_t failed() const { return failed_.load(std::memory_order_relaxed); }
  std::uint64_t died() const { return died_.load(std::memory_order_relaxed); }
  std::uint64_t dropped() const { return dropped_.load(std::memory_order_relaxed); }

 private:
  void deliver_due(PeriodicThread& thread);
  HttpPostOutcome post_signed(const EventRecord& event);
  bool record_delivered(const EventRecord& event, const HttpPostOutcome& outcome, Millis done,
                        Millis lease_until, nlohmann::json& fields);
  bool record_failed(const EventRecord& event, const HttpPostOutcome& outcome, int attempt,
                     Millis done, Millis lease_until, nlohmann::json& fields);

  Store& store_;
  const WebhookKey key_;
  const WebhookSettings settings_;
  WebhookPoster poster_;
  std::vector<std::unique_ptr<PeriodicThread>> threads_;
  PeriodicThread trimmer_;
  bool over_max_logged_ = false;  // the trimmer's own
  std::atomic<std::uint64_t> delivered_{0};
  std::atomic<std::uint64_t> failed_{0};
  std::atomic<std::uint64_t> died_{0};
  std::atomic<std::uint64_t> dropped_{0};
};

}  // namespace authd
