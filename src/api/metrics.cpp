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

}  // namespace

boost::asio::awaitable<ApiResponse> handle_metrics(ApiContext& ctx, ApiRequest& /*request*/) {
  if (ctx.metrics == nullptr) co_return error_response(404);
  StoreReadingsCache& cache = ctx.metrics->store_readings();
  StoreReadings store;
  while (true) {
    StoreReadingsCache::Ticket ticket = cache.begin();
    if (ticket.action == StoreReadingsCache::Action::use) {
      store = ticket.readings;
      break;
    }
    if (ticket.action == StoreReadingsCache::Action::refresh) {
      AbandonUnlessCompleted guard{cache};
      std::int64_t pending_mails = 0;
      std::int64_t live_sessions = 0;
      std::int64_t pending_webhooks = 0;
      std::int64_t dead_webhooks = 0;
      std::int64_t events_written = 0;
      auto count = [&](Transaction& tx) {
        pending_mails = tx.outbox().pending_count();
        live_sessions = tx.sessions().live_count(now_millis());
        pending_webhooks = tx.webhooks().pending_count();
        dead_webhooks = tx.webhooks().dead_count();
        events_written = tx.events().last_seq();
      };
      StoreStatus status = co_await ctx.auth.db.read_aside(count);
      store.up = status == StoreStatus::ok;
      store.pending_mails = pending_mails;
      store.live_sessions = live_sessions;
      store.pending_webhooks = pending_webhooks;
      store.dead_webhooks = dead_webhooks;
      store.events_written = events_written;
      cache.complete(store);
      guard.completed = true;
      break;
    }
    // Another scrape's first query is in flight: ask again shortly.
    auto executor = co_await boost::asio::this_coro::executor;
    boost::asio::steady_timer pause(executor, std::chrono::milliseconds(5));
    co_await pause.async_wait(boost::asio::use_awaitable);
  }
  std::int64_t pending_mails = store.pending_mails;
  std::int64_t live_sessions = store.live_sessions;

  std::vector<MetricReading> readings;
  bool up = store.up;
  readings.push_back({"authd_store_up",
                      "1 when the store answered its last reading (taken at most 5 s ago), else "
                      "0 (and the store's readings are left out).",
                      "gauge", up ? 1.0 : 0.0});
  if (up) {
    readings.push_back({"authd_outbox_pending_mails",
                        "Mails in the outbox not yet delivered (due, retrying or in delivery).",
                        "gauge", static_cast<double>(pending_mails)});
    readings.push_back({"authd_sessions_live", "Login sessions not yet expired or revoked.",
                        "gauge", static_cast<double>(live_sessions)});
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
  }
  ApiResponse response;
  response.status = 200;
  response.content_type = kPrometheusContentType;
  response.body = ctx.metrics->render(readings);
  co_return response;
}

}  // namespace authd
