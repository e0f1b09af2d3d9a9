// GET /metrics (decisions.md 7.4): the Prometheus text format. The request
// counters and the pools' readings are in memory; the outbox backlog and the
// live sessions are counted by the store, on a database thread like any
// other query, so that a scrape never blocks a connection thread.
#include "metrics/metrics.hpp"

#include "api/errors.hpp"
#include "api/handlers.hpp"
#include "core/time.hpp"
#include "store/database.hpp"

namespace authd {

boost::asio::awaitable<ApiResponse> handle_metrics(ApiContext& ctx, ApiRequest& /*request*/) {
  if (ctx.metrics == nullptr) co_return error_response(404);
  std::int64_t pending_mails = 0;
  std::int64_t live_sessions = 0;
  auto count = [&](Transaction& tx) {
    pending_mails = tx.pending_mail_count();
    live_sessions = tx.live_session_count(now_millis());
  };
  StoreStatus status = co_await ctx.auth.db.read(count);

  std::vector<MetricReading> readings;
  bool up = status == StoreStatus::ok;
  readings.push_back({"authd_store_up",
                      "1 when the store answered this scrape's queries, else 0 (and the store's "
                      "readings are left out).",
                      "gauge", up ? 1.0 : 0.0});
  if (up) {
    readings.push_back({"authd_outbox_pending_mails",
                        "Mails in the outbox not yet delivered (due, retrying or in delivery).",
                        "gauge", static_cast<double>(pending_mails)});
    readings.push_back({"authd_sessions_live", "Login sessions not yet expired or revoked.",
                        "gauge", static_cast<double>(live_sessions)});
  }
  ApiResponse response;
  response.status = 200;
  response.content_type = std::string(kPrometheusContentType);
  response.body = ctx.metrics->render(readings);
  co_return response;
}

}  // namespace authd
