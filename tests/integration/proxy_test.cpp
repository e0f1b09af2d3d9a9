// interface.md 13.1: the client address behind a trusted reverse proxy. A
// real nginx (tests/integration/reverse_proxy.hpp) in front of authd, with
// `--trusted-proxies 127.0.0.1/32` (nginx reaches authd from 127.0.0.1);
// clients connect from addresses of their own in 127.0.0.0/8.
#include <gtest/gtest.h>

#include "contract_support.hpp"
#include "harness.hpp"
#include "reverse_proxy.hpp"

namespace authd::test {
namespace {

const std::string kLoopbackClientA = "127.0.0.2";
const std::string kLoopbackClientB = "127.0.0.3";

std::vector<std::string> behind_loopback_proxy() {
  std::vector<std::string> args = fast_hashing();
  args.insert(args.end(), {"--trusted-proxies", "127.0.0.1/32"});
  return args;
}

// A failed login (unknown e-mail: no per-e-mail limit is reached) from
// `source` to `port`, with extra header fields.
HttpResponse failed_login_through(unsigned short port, const std::string& source, int n,
                                  const Headers& extra = {}) {
  HttpConnection connection(port, source);
  Headers headers = {{"Content-Type", "application/json"}};
  headers.insert(headers.end(), extra.begin(), extra.end());
  return connection.request(
      "POST", "/login", headers,
      login_body("guess" + std::to_string(n) + "@example.com", "wrong password"));
}

// The `client` of every request line logged for `request_id`.
std::vector<std::string> clients_logged(const AuthdProcess& authd, const std::string& request_id) {
  std::vector<std::string> clients;
  for (int i = 0; i < 500 && clients.empty(); ++i) {
    for (auto& line : log_lines(authd)) {
      if (line.value("event", "") == "request" && line.value("request_id", "") == request_id)
        clients.push_back(line.value("client", ""));
    }
    if (clients.empty()) std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return clients;
}

// 13.1 and 6 /login 4: behind nginx, the per-client limit (100 failures)
// holds per real client: one client's failures lock out that client only,
// a forged X-Forwarded-For (which nginx appends to) changes nothing, and
// neither does one sent straight to authd from a peer it does not trust.
TEST(Proxy, Interface_13_1_PerClientLoginThrottleHoldsPerRealClientBehindNginx) {
  AuthdProcess authd(behind_loopback_proxy());
  authd.add_user(kEmail, kPassword);
  NginxProxy nginx(authd.port());

  for (int i = 0; i < 100; ++i) {
    HttpResponse failed = failed_login_through(nginx.port(), kLoopbackClientA, i);
    ASSERT_EQ(failed.status, 401) << i << ": " << failed.body << "\n" << nginx.error_log();
  }
  EXPECT_EQ(failed_login_through(nginx.port(), kLoopbackClientA, 100).status, 429);

  // Another client behind the same proxy is not affected.
  EXPECT_EQ(failed_login_through(nginx.port(), kLoopbackClientB, 101).status, 401);
  HttpConnection b(nginx.port(), kLoopbackClientB);
  HttpResponse right = b.request("POST", "/login", {{"Content-Type", "application/json"}},
                                 login_body(kEmail, kPassword));
  EXPECT_EQ(right.status, 200) << right.body;

  // Client A cannot name another client: nginx appends the real one.
  EXPECT_EQ(failed_login_through(nginx.port(), kLoopbackClientA, 102,
                                 {{"X-Forwarded-For", "203.0.113.50"}})
                .status,
            429);
  EXPECT_EQ(failed_login_through(
                nginx.port(), kLoopbackClientA, 103,
                {{"X-Forwarded-For", "203.0.113.51"}, {"X-Forwarded-For", "203.0.113.52"}})
                .status,
            429);
  EXPECT_EQ(
      failed_login_through(nginx.port(), kLoopbackClientA, 104, {{"Forwarded", "for=203.0.113.53"}})
          .status,
      429);
  // Nor by going around the proxy: authd does not trust 127.0.0.2.
  EXPECT_EQ(failed_login_through(authd.port(), kLoopbackClientA, 105,
                                 {{"X-Forwarded-For", "203.0.113.54"}})
                .status,
            429);
  EXPECT_EQ(
      failed_login_through(authd.port(), kLoopbackClientA, 106, {{"Forwarded", "for=203.0.113.55"}})
          .status,
      429);

  // The counters are the real clients'; nginx's own address has none.
  EXPECT_EQ(lines(authd.sql("select key, count(*) from throttle_events where key like "
                            "'login:client:%' group by key order by key")),
            (std::vector<std::string>{"login:client:127.0.0.2|100", "login:client:127.0.0.3|1"}));
}

// 13.1 and 9.2: the request log names the real client, never a forged one.
TEST(Proxy, Interface_13_1_LogsNameTheRealClient) {
  AuthdProcess authd(behind_loopback_proxy());
  NginxProxy nginx(authd.port());
  HttpConnection a(nginx.port(), kLoopbackClientA);
  EXPECT_EQ(a.request("GET", "/healthz", {{"X-Request-Id", "through-nginx"}}).status, 200);
  HttpConnection forging(nginx.port(), kLoopbackClientB);
  EXPECT_EQ(
      forging
          .request("GET", "/healthz",
                   {{"X-Request-Id", "forged-through-nginx"}, {"X-Forwarded-For", "203.0.113.50"}})
          .status,
      200);
  HttpConnection direct(authd.port(), kLoopbackClientB);
  EXPECT_EQ(direct
                .request("GET", "/healthz",
                         {{"X-Request-Id", "forged-direct"}, {"X-Forwarded-For", "203.0.113.50"}})
                .status,
            200);

  EXPECT_EQ(clients_logged(authd, "through-nginx"), std::vector<std::string>{kLoopbackClientA});
  EXPECT_EQ(clients_logged(authd, "forged-through-nginx"),
            std::vector<std::string>{kLoopbackClientB});
  EXPECT_EQ(clients_logged(authd, "forged-direct"), std::vector<std::string>{kLoopbackClientB});
}

// 13.1: without --trusted-proxies (the default) the headers are ignored
// even from loopback: the peer is the client.
TEST(Proxy, Interface_13_1_ByDefaultNoPeerIsTrusted) {
  AuthdProcess authd(fast_hashing());
  HttpResponse res =
      send_request(authd.port(), "GET", "/healthz",
                   {{"X-Request-Id", "untrusted"}, {"X-Forwarded-For", "203.0.113.50"}});
  EXPECT_EQ(res.status, 200);
  EXPECT_EQ(clients_logged(authd, "untrusted"), std::vector<std::string>{"127.0.0.1"});
}

// 13.1: a value that is not a network is refused at start, naming the flag.
TEST(Proxy, Interface_13_1_MalformedTrustedProxiesIsRefused) {
  AuthdProcess authd(fast_hashing());
  for (const char* value : {"10.0.0.1/8", "localhost", "10.0.0.0/33", "127.0.0.1,garbage"}) {
    std::string output;
    EXPECT_NE(authd.cli({"serve", "--trusted-proxies", value}, "", &output), 0) << value;
    EXPECT_NE(output.find("--trusted-proxies"), std::string::npos) << output;
  }
}

}  // namespace
}  // namespace authd::test
