#include "metrics/metrics.hpp"

#include <charconv>
#include <cmath>
#include <map>

namespace authd {
namespace {

constexpr int kLowestStatus = 100;
constexpr int kStatuses = 500;  // 100 to 599

// Prometheus floats: integers without a fraction, +Inf spelled so.
std::string number(double value) {
  if (std::isinf(value)) return value > 0 ? "+Inf" : "-Inf";
  if (std::isnan(value)) return "NaN";
  char text[64];
  // Fixed notation: "0.0005", not "5e-04", as Prometheus' own clients write le.
  auto [end, ec] = std::to_chars(text, text + sizeof text, value, std::chars_format::fixed);
  return ec == std::errc{} ? std::string(text, end) : "NaN";
}

// A label value with \, " and newline escaped (text format 0.0.4).
std::string label_value(std::string_view value) {
  std::string out;
  for (char c : value) {
    if (c == '\\' || c == '"') {
      out += '\\';
      out += c;
    } else if (c == '\n') {
      out += "\\n";
    } else {
      out += c;
    }
  }
  return out;
}

void header(std::string& out, std::string_view name, std::string_view help, std::string_view type) {
  out.append("# HELP ").append(name).append(" ").append(help).append("\n");
  out.append("# TYPE ").append(name).append(" ").append(type).append("\n");
}

// One sample of a route's series: `name{route="route",label="value"} sample`,
// the second label left out when `label` is empty.
void route_sample(std::string& out, std::string_view name, std::string_view route,
                  std::string_view label, std::string_view value, std::string_view sample) {
  out.append(name).append("{route=\"").append(route);
  if (!label.empty()) out.append("\",").append(label).append("=\"").append(value);
  out.append("\"} ").append(sample).append("\n");
}

}  // namespace

struct Metrics::Route {
  explicit Route(std::string n) : name(std::move(n)) {}
  std::string name;
  std::array<std::atomic<std::uint64_t>, kStatuses> by_status{};
  std::array<std::atomic<std::uint64_t>, kLatencyBuckets.size()> buckets{};  // not cumulative
  std::atomic<std::uint64_t> count{0};
  std::atomic<std::uint64_t> sum_ns{0};

  void render_requests(std::string& out) const;
  void render_duration(std::string& out) const;
};

// authd_http_requests_total's samples: one per status answered.
void Metrics::Route::render_requests(std::string& out) const {
  std::string label = label_value(name);
  for (int i = 0; i < kStatuses; ++i) {
    std::uint64_t n = by_status[static_cast<std::size_t>(i)].load(std::memory_order_relaxed);
    if (n == 0) continue;
    route_sample(out, "authd_http_requests_total", label, "status",
                 std::to_string(kLowestStatus + i), std::to_string(n));
  }
}

// authd_http_request_duration_seconds' samples: the cumulative buckets, the
// sum and the count.
void Metrics::Route::render_duration(std::string& out) const {
  // Read count first: buckets incremented after it only make the +Inf
  // bucket (the count) lag, never go below a finite bucket.
  std::uint64_t total = count.load(std::memory_order_relaxed);
  std::uint64_t cumulative = 0;
  std::string label = label_value(name);
  for (std::size_t i = 0; i < kLatencyBuckets.size(); ++i) {
    cumulative += buckets[i].load(std::memory_order_relaxed);
    route_sample(out, "authd_http_request_duration_seconds_bucket", label, "le",
                 number(kLatencyBuckets[i]), std::to_string(cumulative));
  }
  total = std::max(total, cumulative);
  route_sample(out, "authd_http_request_duration_seconds_bucket", label, "le", "+Inf",
               std::to_string(total));
  double sum = static_cast<double>(sum_ns.load(std::memory_order_relaxed)) / 1e9;
  route_sample(out, "authd_http_request_duration_seconds_sum", label, {}, {}, number(sum));
  route_sample(out, "authd_http_request_duration_seconds_count", label, {}, {},
               std::to_string(total));
}

Metrics::Metrics(const std::vector<std::string>& routes) {
  for (const auto& name : routes) {
    bool known = false;
    for (const auto& r : routes_) known = known || r->name == name;
    if (!known) routes_.push_back(std::make_unique<Route>(name));
  }
  routes_.push_back(std::make_unique<Route>("unmatched"));
}

Metrics::~Metrics() = default;

Metrics::Route& Metrics::route(std::string_view name) {
  for (auto& r : routes_) {
    if (r->name == name) return *r;
  }
  return *routes_.back();  // "unmatched"
}

void Metrics::observe_request(std::string_view route_name, int status,
                              std::chrono::nanoseconds latency) {
  Route& r = route(route_name);
  if (status >= kLowestStatus && status < kLowestStatus + kStatuses)
    r.by_status[static_cast<std::size_t>(status - kLowestStatus)].fetch_add(
        1, std::memory_order_relaxed);
  double seconds = std::chrono::duration<double>(latency).count();
  for (std::size_t i = 0; i < kLatencyBuckets.size(); ++i) {
    if (seconds <= kLatencyBuckets[i]) {
      r.buckets[i].fetch_add(1, std::memory_order_relaxed);
      break;
    }
  }
  r.sum_ns.fetch_add(static_cast<std::uint64_t>(std::max<std::int64_t>(0, latency.count())),
                     std::memory_order_relaxed);
  r.count.fetch_add(1, std::memory_order_relaxed);
}

void Metrics::add_source(std::function<void(std::vector<MetricReading>&)> source) {
  sources_.push_back(std::move(source));
}

std::string Metrics::render(const std::vector<MetricReading>& extra) const {
  std::string out;
  out.reserve(std::size_t{16} * 1024);

  header(out, "authd_http_requests_total", "HTTP requests answered, by matched route and status.",
         "counter");
  for (const auto& r : routes_) r->render_requests(out);

  header(out, "authd_http_request_duration_seconds",
         "Time from the first byte of a request to the last byte of its response, by matched "
         "route.",
         "histogram");
  for (const auto& r : routes_) r->render_duration(out);

  std::vector<MetricReading> readings;
  for (const auto& source : sources_) source(readings);
  readings.insert(readings.end(), extra.begin(), extra.end());
  for (const auto& reading : readings) {
    header(out, reading.name, reading.help, reading.type);
    out.append(reading.name).append(" ").append(number(reading.value)).append("\n");
  }
  return out;
}

}  // namespace authd
