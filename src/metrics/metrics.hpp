// Prometheus metrics (interface.md 7.4): counters and latency histograms of
// the HTTP requests, kept in atomics that the connection threads update
// without a lock, plus readings taken from their owners at scrape time (the
// hashing pool, the outbox worker, the store). Rendered in the Prometheus
// text exposition format 0.0.4. See docs/reference/metrics-and-logs.md.
#pragma once

#include <array>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "metrics/store_readings_cache.hpp"

namespace authd {

inline constexpr std::string_view kPrometheusContentType =
    "text/plain; version=0.0.4; charset=utf-8";

// One gauge or counter value read at scrape time, e.g. the hashing queue.
struct MetricReading {
  std::string name;  // e.g. "authd_hashing_queue_depth"
  std::string help;
  std::string type;  // "gauge" or "counter"
  double value = 0;
};

class Metrics {
 public:
  // `routes`: every route label the server can report (the matched paths of
  // the route table); "unmatched" is added for requests that matched none.
  explicit Metrics(const std::vector<std::string>& routes);
  ~Metrics();
  Metrics(const Metrics&) = delete;
  Metrics& operator=(const Metrics&) = delete;

  // Called once per response. `route` is the matched route, never the raw
  // target (unbounded label values would be a memory leak and a way to
  // write into the monitoring system). Lock-free.
  void observe_request(std::string_view route, int status, std::chrono::nanoseconds latency);

  // A source of readings, called at every scrape on the scraping thread: it
  // must be cheap and must not block (atomics of the pools, not the store).
  void add_source(std::function<void(std::vector<MetricReading>&)> source);

  // Everything in the text format; `extra` are readings the caller took
  // itself (the store's counts, read asynchronously).
  std::string render(const std::vector<MetricReading>& extra = {}) const;

  // The store's readings (outbox backlog, live sessions), cached a few
  // seconds for GET /metrics (metrics/store_readings_cache.hpp).
  StoreReadingsCache& store_readings() { return store_readings_; }

  // Upper bounds of the latency histogram buckets, in seconds.
  static constexpr std::array<double, 14> kLatencyBuckets = {
      0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10};

 private:
  struct Route;
  Route& route(std::string_view name);

  std::vector<std::unique_ptr<Route>> routes_;  // fixed after construction
  std::vector<std::function<void(std::vector<MetricReading>&)>> sources_;  // set before serving
  StoreReadingsCache store_readings_;
};

}  // namespace authd
