#include "cli/metric_sources.hpp"

#include "crypto/argon2_memory.hpp"
#include "crypto/hashing_pool.hpp"
#include "mail/outbox_worker.hpp"
#include "webhooks/webhook_worker.hpp"

namespace authd {

void add_server_sources(Metrics& metrics, const HashingPool& hashing, const OutboxWorker& outbox) {
  metrics.add_source([&hashing](std::vector<MetricReading>& out) {
    out.push_back({"authd_hashing_workers", "argon2id worker threads (--hash-workers).", "gauge",
                   static_cast<double>(hashing.workers())});
    out.push_back({"authd_hashing_busy_workers", "argon2id workers computing a hash right now.",
                   "gauge", static_cast<double>(hashing.busy_workers())});
    out.push_back({"authd_hashing_queue_depth", "Hashing jobs waiting for a free worker.", "gauge",
                   static_cast<double>(hashing.queue_depth())});
    out.push_back({"authd_hashing_queue_capacity",
                   "Hashing jobs that may wait (--hash-queue); beyond it requests get 503.",
                   "gauge", static_cast<double>(hashing.queue_capacity())});
    out.push_back({"authd_hashing_costly_in_lane",
                   "Verifications of costly imported hash kinds in their one-worker lane, "
                   "waiting or running; they hold no place in the pool.",
                   "gauge", static_cast<double>(hashing.costly_in_lane())});
    out.push_back({"authd_hashing_rejected_total",
                   "Hashing jobs refused because workers and queue were full (answered 503).",
                   "counter", static_cast<double>(hashing.rejected())});
    out.push_back({"authd_argon2_memory_reused_total",
                   "argon2id hashes that ran in a worker's kept memory instead of memory "
                   "libsodium mapped afresh (--argon2-warm-memory).",
                   "counter", static_cast<double>(argon2_memory_reused_total())});
    const VerificationFloor& floor = hashing.floor();
    out.push_back({"authd_login_floor_seconds",
                   "No failed login is answered sooner than this after its verification began "
                   "(the slowest stored kind of hash, with a margin).",
                   "gauge", static_cast<double>(floor.current().count()) / 1e9});
    out.push_back({"authd_login_floor_overruns_total",
                   "Verifications that took longer than the floor (their failures answered "
                   "late: the margin was too small for the load).",
                   "counter", static_cast<double>(floor.overruns())});
  });
  metrics.add_source([&outbox](std::vector<MetricReading>& out) {
    out.push_back({"authd_outbox_sent_total", "Mails the transport accepted.", "counter",
                   static_cast<double>(outbox.sent())});
    out.push_back({"authd_outbox_delivery_failures_total",
                   "Delivery attempts that failed (each is retried with backoff).", "counter",
                   static_cast<double>(outbox.failures())});
    out.push_back(
        {"authd_outbox_rejected_total",
         "Mails dropped unsent: the relay refused the recipient for good (5xx to RCPT TO).",
         "counter", static_cast<double>(outbox.rejected())});
  });
}

void add_webhook_source(Metrics& metrics, const WebhookWorker* webhooks) {
  metrics.add_source([webhooks](std::vector<MetricReading>& out) {
    auto count = [webhooks](std::uint64_t (WebhookWorker::*reading)() const) {
      return webhooks == nullptr ? 0.0 : static_cast<double>((webhooks->*reading)());
    };
    out.push_back({"authd_webhook_delivered_total",
                   "Webhook deliveries this process made that the receiver answered with a 2xx.",
                   "counter", count(&WebhookWorker::delivered)});
    out.push_back({"authd_webhook_failed_attempts_total",
                   "Webhook delivery attempts of this process that failed (another status, no "
                   "connection, a time-out); each is retried until --webhook-max-attempts.",
                   "counter", count(&WebhookWorker::failed)});
    out.push_back({"authd_webhook_dropped_total",
                   "Pending login.failed webhook deliveries this process dropped, the oldest "
                   "first, to keep the queue within --webhook-queue-max.",
                   "counter", count(&WebhookWorker::dropped)});
  });
}

}  // namespace authd
