// GET /metrics (interface.md 7.4): the Prometheus text format. The request
// counters and the pools' readings are in memory; the outbox backlog and the
// live sessions are counted by the store, on a database thread of their own
// (Database::read_aside), so that a scrape blocks neither a connection
// thread nor the requests queued for the database. Those
// counts are cached a few seconds, one query at a time
// (metrics/store_readings_cache.hpp): /metrics needs no token, and a flood
// of scrapes must not compete with logins for the database threads.
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>

#include "metrics/metrics.hpp"

#include "api/errors.hpp"
#include "api/handlers.hpp"
#include "core/time.hpp"
#include "store/database.hpp"

namespace authd {
namespace {

// Clears the cache's refresh flag if the query throws.
struct AbandonUnlessCompleted {
  StoreReadingsCache& cache;
  bool completed = false;
  ~AbandonUnlessCompleted() {
    if (!completed) cache.abandon();
  }
};

// The store's counts, read on a database thread (Database::read_aside).
void count_store_readings(Transaction& tx, StoreReadings& store) {
  store.pending_mails = tx.outbox().pending_count();
  store.live_sessions = tx.sessions().live_count(now_millis());
  store.pending_webhooks = tx.webhooks().pending_count();
  store.dead_webhooks = tx.webhooks().dead_count();
  store.events_written = tx.events().last_seq();
}

// authd_store_up, and the store's readings when it answered.
std::vector<MetricReading> store_metric_readings(const StoreReadings& store) {
  std::vector<MetricReading> readings;
  bool up = store.up;
  readings.push_back({"authd_store_up",
                      "1 when the store answered its last reading (taken at most 5 s ago), else "
                      "0 (and the store's readings are left out).",
                      "gauge", up ? 1.0 : 0.0});
  if (!up) return readings;
  readings.push_back({"authd_outbox_pending_mails",
                      "Mails in the outbox not yet delivered (due, retrying or in delivery).",
                      "gauge", static_cast<double>(store.pending_mails)});
  readings.push_back({"authd_sessions_live", "Login sessions not yet expired or revoked.", "gauge",
                      static_cast<double>(store.live_sessions)});
  readings.push_back({"authd_webhook_deliveries_pending",
                      "Webhook deliveries neither delivered nor dead (due, retrying or under "
                      "way), of every instance.",
                      "gauge", static_cast<double>(store.pending_webhooks)});
  readings.push_back({"authd_webhook_deliveries_dead",
                      "Webhook deliveries that used up --webhook-max-attempts (see `authd "
                      "webhooks dead`).",
                      "gauge", static_cast<double>(store.dead_webhooks)});
  readings.push_back({"authd_events_written_total",
                      "Events written to the audit trail, by every instance and command (the "
                      "newest event's sequence number): rate() is events per second.",
                      "counter", static_cast<double>(store.events_written)});
  return readings;
}

ApiResponse metrics_response(const Metrics& metrics, const StoreReadings& store) {
  ApiResponse response;
  response.status = 200;
  response.content_type = kPrometheusContentType;
  response.body = metrics.render(store_metric_readings(store));
  return response;
}

}  // namespace

boost::asio::awaitable<ApiResponse> handle_metrics(ApiContext& ctx, ApiRequest& /*request*/) {
  if (ctx.metrics == nullptr) co_return error_response(404);
  StoreReadingsCache& cache = ctx.metrics->store_readings();
  while (true) {
    StoreReadingsCache::Ticket ticket = cache.begin();
    if (ticket.action == StoreReadingsCache::Action::use)
      co_return metrics_response(*ctx.metrics, ticket.readings);
    if (ticket.action == StoreReadingsCache::Action::refresh) {
      AbandonUnlessCompleted guard{cache};
      StoreReadings store;
      auto count = [&](Transaction& tx) { count_store_readings(tx, store); };
      StoreStatus status = co_await ctx.auth.db.read_aside(count);
      store.up = status == StoreStatus::ok;
      cache.complete(store);
      guard.completed = true;
      co_return metrics_response(*ctx.metrics, store);
    }
    // Another scrape's first query is in flight: ask again shortly.
    auto executor = co_await boost::asio::this_coro::executor;
    boost::asio::steady_timer pause(executor, std::chrono::milliseconds(5));
    co_await pause.async_wait(boost::asio::use_awaitable);
  }
}

}  // namespace authd
