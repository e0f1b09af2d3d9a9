#include "webhooks/webhook_worker.hpp"

#include <algorithm>

#include "auth/events/events.hpp"
#include "core/log.hpp"
#include "core/time.hpp"

namespace authd {

bool record_webhooks_state(Store& store, bool on) {
  bool was = false;
  if (store.run(Store::Mode::write, [&](Transaction& tx) {
        was = tx.webhooks().set_delivering(on);
      }) != StoreStatus::ok) {
    log::error("webhooks_state_not_recorded", {{"reason", "the store failed"}});
    return false;
  }
  if (was && !on)
    log::warn("webhooks_turned_off",
              {{"reason",
                "this instance has no --webhook-url: no event is queued for webhooks "
                "from now on, by any instance or command"}});
  return true;
}

WebhookWorker::WebhookWorker(Store& store, WebhookKey key, WebhookSettings settings,
                             WebhookPoster poster)
    : store_(store),
      key_(std::move(key)),
      settings_(std::move(settings)),
      poster_(std::move(poster)),
      trimmer_(settings_.poll_interval, [this] { trim_queue(); }) {
  // Complete before start(): each thread finds itself in threads_.
  for (std::size_t i = 0; i < std::max<std::size_t>(settings_.concurrency, 1); ++i) {
    threads_.push_back(std::make_unique<PeriodicThread>(settings_.poll_interval,
                                                        [this, i] { deliver_due(*threads_[i]); }));
  }
}

void WebhookWorker::start() {
  for (auto& thread : threads_) thread->start();
  trimmer_.start();
}

void WebhookWorker::stop() {
  trimmer_.stop();
  for (auto& thread : threads_) thread->stop();
}

// Counting the queue is a read; only a queue over the bound costs a write.
std::int64_t WebhookWorker::trim_queue() {
  std::int64_t pending = 0;
  if (store_.run(Store::Mode::read,
                 [&](Transaction& tx) { pending = tx.webhooks().pending_count(); }) !=
          StoreStatus::ok ||
      pending <= settings_.queue_max) {
    over_max_logged_ = false;
    return 0;
  }
  std::int64_t dropped = 0;
  if (store_.run(Store::Mode::write, [&](Transaction& tx) {
        dropped = tx.webhooks().drop_over(settings_.queue_max, now_millis());
      }) != StoreStatus::ok)
    return 0;
  nlohmann::json fields = {{"pending", pending}, {"queue_max", settings_.queue_max}};
  if (dropped > 0) {
    dropped_.fetch_add(static_cast<std::uint64_t>(dropped), std::memory_order_relaxed);
    fields["dropped"] = dropped;
    fields["type"] = "login.failed";
    log::warn("webhook_deliveries_dropped", fields);
  }
  if (pending - dropped > settings_.queue_max && !over_max_logged_) {
    over_max_logged_ = true;  // nothing more may be dropped: other types are kept
    log::warn("webhook_queue_over_max", fields);
  }
  return dropped;
}

void WebhookWorker::deliver_due(PeriodicThread& thread) {
  while (!thread.stopping() && deliver_one()) {
  }
}

// Posts `event` to the webhook URL, signed.
HttpPostOutcome WebhookWorker::post_signed(const EventRecord& event) {
  // Signed at each attempt with the time of the attempt: receivers refuse
  // old timestamps (replay protection), and a retry may come hours later.
  std::string body = event_json(event).dump();
  std::string timestamp = std::to_string(now_millis() / 1000);
  HttpHeaderList headers = {
      {"Content-Type", "application/json"},
      {"User-Agent", settings_.user_agent},
      {"webhook-id", event.id},
      {"webhook-timestamp", timestamp},
      {"webhook-signature", webhook_signature(key_, event.id, std::stoll(timestamp), body)},
  };
  return poster_(settings_.url, headers, body, settings_.timeout);
}

// The receiver took the event: it is marked delivered.
bool WebhookWorker::record_delivered(const EventRecord& event, const HttpPostOutcome& outcome,
                                     Millis done, Millis lease_until, nlohmann::json& fields) {
  delivered_.fetch_add(1, std::memory_order_relaxed);
  bool marked = false;
  StoreStatus status = store_.run(Store::Mode::write, [&](Transaction& tx) {
    marked = tx.webhooks().mark_delivered(event.seq, done, lease_until);
  });
  fields["status"] = outcome.status;
  log::info("webhook_delivered", fields);
  // Unmarked (the store failed, or the lease ran out and another claim
  // took it): it is delivered again, which at least once allows.
  if (status == StoreStatus::ok && !marked) log::warn("webhook_delivered_twice", fields);
  return status == StoreStatus::ok;
}

// The attempt failed: the event is tried again after backoff, or, at its
// last attempt, marked dead.
bool WebhookWorker::record_failed(const EventRecord& event, const HttpPostOutcome& outcome,
                                  int attempt, Millis done, Millis lease_until,
                                  nlohmann::json& fields) {
  failed_.fetch_add(1, std::memory_order_relaxed);
  std::string error = outcome.summary();
  fields["error"] = error;
  bool dead = attempt >= settings_.max_attempts;
  StoreStatus status = store_.run(Store::Mode::write, [&](Transaction& tx) {
    if (dead) {
      tx.webhooks().mark_dead(event.seq, lease_until, attempt, done, error);
    } else {
      Millis next =
          done + capped_backoff(attempt, settings_.first_retry, settings_.max_retry).count();
      tx.webhooks().reschedule(event.seq, lease_until, attempt, next, error);
    }
  });
  if (dead) {
    died_.fetch_add(1, std::memory_order_relaxed);
    log::warn("webhook_dead", fields);
  } else {
    log::warn("webhook_failed", fields);
  }
  return status == StoreStatus::ok;
}

bool WebhookWorker::deliver_one() {
  Millis now = now_millis();
  Millis lease_until = now + settings_.lease.count();
  std::optional<WebhookDeliveryRecord> delivery;
  StoreStatus status = store_.run(Store::Mode::write, [&](Transaction& tx) {
    delivery = tx.webhooks().claim_due(now, lease_until);
  });
  if (status != StoreStatus::ok || !delivery) return false;

  const EventRecord& event = delivery->event;
  HttpPostOutcome outcome = post_signed(event);
  int attempt = delivery->attempts + 1;
  Millis done = now_millis();
  nlohmann::json fields = {{"event_id", event.id}, {"type", event.type}, {"attempt", attempt}};
  if (outcome.delivered()) return record_delivered(event, outcome, done, lease_until, fields);
  return record_failed(event, outcome, attempt, done, lease_until, fields);
}

}  // namespace authd
