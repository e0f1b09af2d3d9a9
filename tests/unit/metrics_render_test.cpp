// The Prometheus rendering of metrics/metrics.hpp: counters by route and
// status, cumulative histogram buckets, unknown routes folded into
// "unmatched". (The integration test parses real output with a real parser.)
#include <gtest/gtest.h>

#include "metrics/metrics.hpp"

namespace authd {
namespace {

using std::chrono::microseconds;
using std::chrono::milliseconds;

bool has_line(const std::string& text, const std::string& line) {
  return ("\n" + text).find("\n" + line + "\n") != std::string::npos;
}

TEST(MetricsRender, CountsByRouteAndStatus) {
  Metrics metrics({"/login", "/me", "/login"});
  metrics.observe_request("/login", 200, milliseconds(3));
  metrics.observe_request("/login", 200, milliseconds(3));
  metrics.observe_request("/login", 401, milliseconds(3));
  metrics.observe_request("/some/raw/target", 404, milliseconds(1));
  std::string text = metrics.render();
  EXPECT_TRUE(has_line(text, R"(authd_http_requests_total{route="/login",status="200"} 2)"))
      << text;
  EXPECT_TRUE(has_line(text, R"(authd_http_requests_total{route="/login",status="401"} 1)"));
  EXPECT_TRUE(has_line(text, R"(authd_http_requests_total{route="unmatched",status="404"} 1)"));
  EXPECT_EQ(text.find("/some/raw/target"), std::string::npos);
  EXPECT_TRUE(has_line(text, "# TYPE authd_http_requests_total counter"));
}

TEST(MetricsRender, HistogramBucketsAreCumulative) {
  Metrics metrics({"/me"});
  metrics.observe_request("/me", 200, microseconds(300));         // <= 0.0005
  metrics.observe_request("/me", 200, milliseconds(7));           // <= 0.01
  metrics.observe_request("/me", 200, std::chrono::seconds(30));  // +Inf only
  std::string text = metrics.render();
  const std::string b = "authd_http_request_duration_seconds_bucket{route=\"/me\",le=";
  EXPECT_TRUE(has_line(text, b + "\"0.0005\"} 1")) << text;
  EXPECT_TRUE(has_line(text, b + "\"0.005\"} 1"));
  EXPECT_TRUE(has_line(text, b + "\"0.01\"} 2"));
  EXPECT_TRUE(has_line(text, b + "\"10\"} 2"));
  EXPECT_TRUE(has_line(text, b + "\"+Inf\"} 3"));
  EXPECT_TRUE(has_line(text, "authd_http_request_duration_seconds_count{route=\"/me\"} 3"));
  EXPECT_TRUE(has_line(text, "authd_http_request_duration_seconds_sum{route=\"/me\"} 30.0073"));
}

TEST(MetricsRender, SourcesAndExtraReadingsAreRendered) {
  Metrics metrics({});
  metrics.add_source([](std::vector<MetricReading>& out) {
    out.push_back({"authd_test_gauge", "A gauge.", "gauge", 4});
  });
  std::string text = metrics.render({{"authd_test_total", "A counter.", "counter", 2}});
  EXPECT_TRUE(has_line(text, "# HELP authd_test_gauge A gauge."));
  EXPECT_TRUE(has_line(text, "# TYPE authd_test_gauge gauge"));
  EXPECT_TRUE(has_line(text, "authd_test_gauge 4"));
  EXPECT_TRUE(has_line(text, "authd_test_total 2"));
}

}  // namespace
}  // namespace authd
