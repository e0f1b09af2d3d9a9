// interface.md 7.4: GET /metrics in the Prometheus text format, checked with
// a real parser of the format: the Prometheus project's own Python parser
// (Debian python3-prometheus-client), through tests/integration/parse_metrics.py,
// which also checks the histograms' structure.
#include <cstdio>
#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

#include "contract_support.hpp"
#include "crypto/warm_argon2_memory.hpp"
#include "harness.hpp"
#include "run_authd.hpp"
#include "source_paths.hpp"

namespace authd::test {
namespace {

struct Scrape {
  HttpResponse response;
  nlohmann::json families;  // name -> {type, help, samples}
};

// Runs the parser on `text`; fails the test when it rejects it.
nlohmann::json parse_with_prometheus_parser(const std::string& text, const std::string& dir) {
  std::string input = dir + "/metrics.txt";
  {
    std::ofstream out(input, std::ios::binary | std::ios::trunc);
    out << text;
  }
  std::string command = "/usr/bin/python3 " +
                        shell_quote(source_path("tests/integration/parse_metrics.py")) + " < " +
                        input + " 2>&1";
  FILE* pipe = ::popen(command.c_str(), "r");
  EXPECT_NE(pipe, nullptr);
  if (pipe == nullptr) return nullptr;
  std::string output;
  char buffer[4096];
  std::size_t n;
  while ((n = std::fread(buffer, 1, sizeof buffer, pipe)) > 0) output.append(buffer, n);
  int status = ::pclose(pipe);
  EXPECT_EQ(status, 0) << "the Prometheus parser rejected /metrics: " << output << "\n" << text;
  auto parsed = nlohmann::json::parse(output, nullptr, false);
  EXPECT_FALSE(parsed.is_discarded()) << output;
  if (parsed.is_discarded() || !parsed.contains("families")) return nlohmann::json::object();
  return parsed["families"];
}

Scrape scrape(const AuthdProcess& authd) {
  Scrape s;
  s.response = send_request(authd.admin_port(), "GET", "/metrics");
  s.families = parse_with_prometheus_parser(s.response.body, authd.directory());
  return s;
}

// The value of the sample `name` with exactly `labels` (-1 when absent).
double sample(const Scrape& s, const std::string& family, const std::string& name,
              const std::map<std::string, std::string>& labels = {}) {
  if (!s.families.contains(family)) return -1;
  for (const auto& item : s.families[family]["samples"]) {
    if (item["name"] != name) continue;
    std::map<std::string, std::string> have = item["labels"];
    if (have == labels) return item["value"];
  }
  return -1;
}

// 7.4: the document is the text format, version 0.0.4, and a real parser
// reads every family the contract names.
TEST(Metrics, Interface_7_4_ServedInPrometheusTextFormatThatARealParserAccepts) {
  AuthdProcess authd(fast_hashing());
  Scrape s = scrape(authd);
  EXPECT_EQ(s.response.status, 200);
  EXPECT_EQ(s.response.header("content-type"), "text/plain; version=0.0.4; charset=utf-8");
  EXPECT_EQ(s.response.header("cache-control"), "no-store");
  const std::map<std::string, std::string> expected = {
      {"authd_http_requests", "counter"},      {"authd_http_request_duration_seconds", "histogram"},
      {"authd_hashing_queue_depth", "gauge"},  {"authd_hashing_busy_workers", "gauge"},
      {"authd_hashing_workers", "gauge"},      {"authd_hashing_rejected", "counter"},
      {"authd_outbox_pending_mails", "gauge"}, {"authd_outbox_delivery_failures", "counter"},
      {"authd_sessions_live", "gauge"},        {"authd_store_up", "gauge"},
      {"authd_outbox_rejected", "counter"},
  };
  for (const auto& [family, type] : expected) {
    ASSERT_TRUE(s.families.contains(family)) << family << " missing:\n" << s.response.body;
    EXPECT_EQ(s.families[family]["type"], type) << family;
  }
  EXPECT_EQ(sample(s, "authd_store_up", "authd_store_up"), 1);
}

// 7.4: requests are counted by matched route and status; the route label
// is the route, never the raw target (which a client chooses freely).
TEST(Metrics, Interface_7_4_RequestsCountedByMatchedRouteAndStatus) {
  AuthdProcess authd(fast_hashing());
  authd.add_user("ada@example.com", "correct horse battery");
  EXPECT_EQ(
      post_json(authd.port(), "/login", login_body("ada@example.com", "correct horse battery"))
          .status,
      200);
  EXPECT_EQ(
      post_json(authd.port(), "/login", login_body("ada@example.com", "wrong password!")).status,
      401);
  EXPECT_EQ(send_request(authd.port(), "GET", "/no-such-route-7f3a?q=1").status, 404);
  EXPECT_EQ(send_request(authd.port(), "DELETE", "/login").status, 405);

  // A request is counted once its response's last byte is written, so the
  // client may see the last response a moment before it is counted.
  const std::string total = "authd_http_requests_total";
  Scrape s;
  EXPECT_TRUE(eventually([&] {
    s = scrape(authd);
    return sample(s, "authd_http_requests", total, {{"route", "/login"}, {"status", "405"}}) == 1;
  }));
  EXPECT_EQ(sample(s, "authd_http_requests", total, {{"route", "/login"}, {"status", "200"}}), 1);
  EXPECT_EQ(sample(s, "authd_http_requests", total, {{"route", "/login"}, {"status", "401"}}), 1);
  EXPECT_EQ(sample(s, "authd_http_requests", total, {{"route", "/login"}, {"status", "405"}}), 1);
  EXPECT_EQ(sample(s, "authd_http_requests", total, {{"route", "unmatched"}, {"status", "404"}}),
            1);
  EXPECT_EQ(s.response.body.find("no-such-route"), std::string::npos)
      << "a raw target became a label value";
  EXPECT_EQ(s.response.body.find("ada@"), std::string::npos);
}

// 7.4: a latency histogram per route, counting every answered request.
TEST(Metrics, Interface_7_4_LatencyHistogramPerRoute) {
  AuthdProcess authd(fast_hashing());
  for (int i = 0; i < 3; ++i) send_request(authd.port(), "GET", "/me");
  const std::string family = "authd_http_request_duration_seconds";
  // Observed after the response's last byte: the third may lag a moment.
  Scrape s;
  EXPECT_TRUE(eventually([&] {
    s = scrape(authd);
    return sample(s, family, family + "_count", {{"route", "/me"}}) == 3;
  }));
  EXPECT_EQ(sample(s, family, family + "_count", {{"route", "/me"}}), 3);
  EXPECT_EQ(sample(s, family, family + "_bucket", {{"route", "/me"}, {"le", "+Inf"}}), 3);
  EXPECT_GT(sample(s, family, family + "_sum", {{"route", "/me"}}), 0);
  EXPECT_EQ(sample(s, family, family + "_count", {{"route", "/login"}}), 0);
}

// 7.4: live sessions follow logins and logouts. The store's readings are
// cached for 5 s (one query per 5 s however many scrapes), so the drop
// after the logout is polled for, bounded.
TEST(Metrics, Interface_7_4_LiveSessionsFollowLoginAndLogout) {
  AuthdProcess authd(fast_hashing());
  authd.add_user("ada@example.com", "correct horse battery");
  std::string first = authd.login("ada@example.com", "correct horse battery");
  std::string second = authd.login("ada@example.com", "correct horse battery");
  ASSERT_FALSE(first.empty());
  ASSERT_FALSE(second.empty());
  EXPECT_EQ(sample(scrape(authd), "authd_sessions_live", "authd_sessions_live"), 2);
  EXPECT_EQ(post_with_token(authd.port(), "/logout", first).status, 200);
  double live = -1;
  EXPECT_TRUE(eventually([&] {
    live = sample(scrape(authd), "authd_sessions_live", "authd_sessions_live");
    return live == 1;
  })) << "authd_sessions_live stayed "
      << live;
}

// 7.4: the hashing pool's size and load.
TEST(Metrics, Interface_7_4_HashingPoolSizeAndLoad) {
  std::vector<std::string> args = fast_hashing();
  args.insert(args.end(), {"--hash-workers", "3", "--hash-queue", "17"});
  AuthdProcess authd(args);
  Scrape s = scrape(authd);
  EXPECT_EQ(sample(s, "authd_hashing_workers", "authd_hashing_workers"), 3);
  EXPECT_EQ(sample(s, "authd_hashing_queue_capacity", "authd_hashing_queue_capacity"), 17);
  EXPECT_EQ(sample(s, "authd_hashing_busy_workers", "authd_hashing_busy_workers"), 0);
  EXPECT_EQ(sample(s, "authd_hashing_queue_depth", "authd_hashing_queue_depth"), 0);
  EXPECT_EQ(sample(s, "authd_hashing_rejected", "authd_hashing_rejected_total"), 0);
}

// 7.4: the outbox backlog, and failed deliveries (a regular file where the
// log transport's mail directory should be: every attempt fails and the
// mail stays in the outbox).
TEST(Metrics, Interface_7_4_OutboxBacklogAndDeliveryFailures) {
  AuthdProcess authd(fast_hashing());
  std::filesystem::remove_all(authd.mail_directory());
  std::ofstream(authd.mail_directory()) << "not a directory";
  authd.add_user("ada@example.com", "correct horse battery");
  EXPECT_EQ(post_json(authd.port(), "/forgot", R"({"email":"ada@example.com"})").status, 200);
  Scrape s;
  // The mail is due after up to 2 s of jitter; the first scrape has cached
  // the store's readings, so wait for the failure and then for the backlog
  // reading to be refreshed (at most 5 s later).
  ASSERT_TRUE(eventually([&] {
    s = scrape(authd);
    return sample(s, "authd_outbox_delivery_failures", "authd_outbox_delivery_failures_total") >=
               1 &&
           sample(s, "authd_outbox_pending_mails", "authd_outbox_pending_mails") == 1;
  })) << s.response.body;
  EXPECT_GE(sample(s, "authd_outbox_delivery_failures", "authd_outbox_delivery_failures_total"), 1);
  EXPECT_EQ(sample(s, "authd_outbox_pending_mails", "authd_outbox_pending_mails"), 1);
  EXPECT_EQ(sample(s, "authd_outbox_sent", "authd_outbox_sent_total"), 0);
}

// The warm argon2 memory (--argon2-warm-memory, crypto/warm_argon2_memory.hpp)
// is counted: with it on, every login hashed after a worker's first hash runs
// in the worker's kept mapping; off, libsodium maps its memory for each hash
// and the counter stays 0. A libsodium that stopped mapping its memory as the
// interposer expects would show as this counter standing still.
TEST(Metrics, ReusedArgon2MemoryIsCountedOnlyWithWarmMemoryOn) {
  if (!kWarmArgon2MemoryBuilt)
    GTEST_SKIP() << "sanitizer build: the warm argon2 memory is compiled out (its runtime "
                    "intercepts mmap)";
  for (const char* setting : {"on", "off"}) {
    std::vector<std::string> args = fast_hashing();
    args.insert(args.end(), {"--hash-workers", "1", "--argon2-warm-memory", setting});
    AuthdProcess authd(args);
    authd.add_user("ada@example.com", "correct horse battery");
    for (int i = 0; i < 3; ++i)
      EXPECT_FALSE(authd.login("ada@example.com", "correct horse battery").empty()) << setting;
    const std::string name = "authd_argon2_memory_reused_total";
    double reused = sample(scrape(authd), "authd_argon2_memory_reused", name);
    if (std::string(setting) == "on")
      EXPECT_GE(reused, 2) << "three logins on one worker: at most the first maps afresh";
    else
      EXPECT_EQ(reused, 0);
  }
}

}  // namespace
}  // namespace authd::test

namespace authd::test {
namespace {

// 7.4 and 10.1: /metrics is served on the management listener only. The
// outbox backlog gauge would otherwise tell anyone whether an address has
// an account (scrape, /forgot, scrape). The public listener answers 404,
// for every method, as for a path it never had; /healthz is on both; the
// public API is not on the management listener.
TEST(ManagementListener, Interface_10_1_MetricsOnTheManagementListenerOnly) {
  AuthdProcess authd(fast_hashing());
  ASSERT_NE(authd.admin_port(), 0);
  ASSERT_NE(authd.admin_port(), authd.port());
  for (const char* method : {"GET", "POST", "OPTIONS", "DELETE"}) {
    HttpResponse pub = send_request(authd.port(), method, "/metrics");
    EXPECT_EQ(pub.status, 404) << method;
    EXPECT_EQ(pub.body, R"({"code":404,"message":"Not Found"})") << method;
  }
  EXPECT_EQ(send_request(authd.admin_port(), "GET", "/metrics").status, 200);
  EXPECT_EQ(send_request(authd.port(), "GET", "/healthz").status, 200);
  EXPECT_EQ(send_request(authd.admin_port(), "GET", "/healthz").status, 200);
  EXPECT_EQ(send_request(authd.admin_port(), "POST", "/login").status, 404);
  EXPECT_EQ(send_request(authd.admin_port(), "GET", "/me").status, 404);
}

// 10.1: a /forgot for an existing account cannot be seen in what the public
// listener serves: the backlog gauge is out of its reach entirely.
TEST(ManagementListener, Interface_7_4_OutboxBacklogIsNotReadableFromThePublicListener) {
  AuthdProcess authd(fast_hashing());
  authd.add_user("ada@example.com", "correct horse battery");
  EXPECT_EQ(post_json(authd.port(), "/forgot", "{\"email\":\"ada@example.com\"}").status, 200);
  HttpResponse pub = send_request(authd.port(), "GET", "/metrics");
  EXPECT_EQ(pub.status, 404);
  EXPECT_EQ(pub.body.find("outbox"), std::string::npos);
}

// 10.1: --admin-listen off: no management listener, and /metrics is still
// not on the public one.
TEST(ManagementListener, Interface_10_1_OffMeansNoManagementListener) {
  std::vector<std::string> args = fast_hashing();
  args.insert(args.end(), {"--admin-listen", "off"});
  AuthdProcess authd(args);
  EXPECT_EQ(authd.admin_port(), 0);
  EXPECT_EQ(send_request(authd.port(), "GET", "/metrics").status, 404);
  EXPECT_EQ(send_request(authd.port(), "GET", "/healthz").status, 200);
  bool listening_admin = false;
  for (const auto& line : log_lines(authd))
    listening_admin |= line.value("event", "") == "admin_listening";
  EXPECT_FALSE(listening_admin);
}

// 10.1: several instances on one host each set their own port (here port
// 0, which picks a free one for each).
TEST(ManagementListener, Interface_10_1_TwoInstancesTakeTheirOwnPorts) {
  AuthdProcess first(fast_hashing());
  AuthdProcess second(fast_hashing());
  EXPECT_NE(first.admin_port(), second.admin_port());
  EXPECT_EQ(send_request(first.admin_port(), "GET", "/metrics").status, 200);
  EXPECT_EQ(send_request(second.admin_port(), "GET", "/metrics").status, 200);
}

}  // namespace
}  // namespace authd::test
