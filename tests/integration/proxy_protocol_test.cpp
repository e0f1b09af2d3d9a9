// interface.md 13.2: the client address from a PROXY protocol header. A
// real HAProxy (tests/integration/load_balancer.hpp) in TCP mode in front
// of authd, sending version 1 (send-proxy) or 2 (send-proxy-v2), with
// `--proxy-protocol --trusted-proxies 127.0.0.1/32` (HAProxy reaches authd
// from 127.0.0.1); clients connect from addresses of their own in
// 127.0.0.0/8.
#include <gtest/gtest.h>

#include "contract_support.hpp"
#include "harness.hpp"
#include "load_balancer.hpp"

namespace authd::test {
namespace {

const std::string kBalancedClientA = "127.0.0.2";
const std::string kBalancedClientB = "127.0.0.3";

std::vector<std::string> behind_load_balancer() {
  std::vector<std::string> args = fast_hashing();
  args.insert(args.end(), {"--proxy-protocol", "--trusted-proxies", "127.0.0.1/32"});
  return args;
}

HttpResponse failed_login_via_balancer(unsigned short port, const std::string& source, int n) {
  HttpConnection connection(port, source);
  return connection.request(
      "POST", "/login", {{"Content-Type", "application/json"}},
      login_body("guess" + std::to_string(n) + "@example.com", "wrong password"));
}

std::vector<std::string> clients_logged_behind_balancer(const AuthdProcess& authd,
                                                        const std::string& request_id) {
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

// 13.2 and 6 /login 4: the per-client limit holds per real client behind
// the balancer, in both versions of the protocol.
void throttle_holds_per_real_client(const std::string& send_proxy) {
  AuthdProcess authd(behind_load_balancer());
  authd.add_user(kEmail, kPassword);
  HaProxy haproxy(authd.port(), send_proxy);
  for (int i = 0; i < 100; ++i) {
    HttpResponse failed = failed_login_via_balancer(haproxy.port(), kBalancedClientA, i);
    ASSERT_EQ(failed.status, 401) << i << ": " << failed.body << "\n" << haproxy.output();
  }
  EXPECT_EQ(failed_login_via_balancer(haproxy.port(), kBalancedClientA, 100).status, 429);
  EXPECT_EQ(failed_login_via_balancer(haproxy.port(), kBalancedClientB, 101).status, 401);
  HttpConnection b(haproxy.port(), kBalancedClientB);
  EXPECT_EQ(b.request("POST", "/login", {{"Content-Type", "application/json"}},
                      login_body(kEmail, kPassword))
                .status,
            200);
  EXPECT_EQ(lines(authd.sql("select key, count(*) from throttle_events where key like "
                            "'login:client:%' group by key order by key")),
            (std::vector<std::string>{"login:client:127.0.0.2|100", "login:client:127.0.0.3|1"}));
}

TEST(ProxyProtocol, Interface_13_2_PerClientThrottleHoldsPerRealClientBehindHaProxyV1) {
  throttle_holds_per_real_client("send-proxy");
}

TEST(ProxyProtocol, Interface_13_2_PerClientThrottleHoldsPerRealClientBehindHaProxyV2) {
  throttle_holds_per_real_client("send-proxy-v2");
}

// 13.2 and 9.2: the request log names the client of the header; an
// X-Forwarded-For from that client (not a trusted proxy) is ignored.
TEST(ProxyProtocol, Interface_13_2_LogsNameTheRealClient) {
  AuthdProcess authd(behind_load_balancer());
  HaProxy haproxy(authd.port(), "send-proxy-v2");
  HttpConnection a(haproxy.port(), kBalancedClientB);
  EXPECT_EQ(a.request("GET", "/healthz",
                      {{"X-Request-Id", "through-haproxy"}, {"X-Forwarded-For", "203.0.113.50"}})
                .status,
            200);
  // Keep-alive: the next request on the connection has the same client.
  EXPECT_EQ(a.request("GET", "/healthz", {{"X-Request-Id", "again"}}).status, 200);
  EXPECT_EQ(clients_logged_behind_balancer(authd, "through-haproxy"),
            std::vector<std::string>{kBalancedClientB});
  EXPECT_EQ(clients_logged_behind_balancer(authd, "again"),
            std::vector<std::string>{kBalancedClientB});
}

// 13.2: a connection without a valid header, or with one from a peer that
// is not trusted, is closed unanswered; a valid one by hand works.
TEST(ProxyProtocol, Interface_13_2_ConnectionWithoutValidHeaderIsClosed) {
  AuthdProcess authd(behind_load_balancer());
  const std::string request = "GET /healthz HTTP/1.1\r\nHost: a\r\nX-Request-Id: by-hand\r\n\r\n";
  for (const std::string& start :
       {std::string(), std::string("PROXY TCP4 203.0.113.9 127.0.0.1 5000\r\n"),
        std::string("PROXY TCP4 2001:db8::1 127.0.0.1 5000 8080\r\n"),
        std::string("\r\n\r\n\0\r\nQUIT\n\x21\x11\x00\x04", 16) + "abcd"}) {
    HttpConnection trusted(authd.port());
    trusted.send_raw(start + request);
    EXPECT_EQ(trusted.read_response().status, 0) << start;
  }
  HttpConnection untrusted(authd.port(), kBalancedClientA);
  untrusted.send_raw("PROXY TCP4 203.0.113.9 127.0.0.1 5000 8080\r\n" + request);
  EXPECT_EQ(untrusted.read_response().status, 0);

  HttpConnection good(authd.port());
  good.send_raw("PROXY TCP4 203.0.113.9 127.0.0.1 5000 8080\r\n" + request);
  EXPECT_EQ(good.read_response().status, 200);
  EXPECT_EQ(clients_logged_behind_balancer(authd, "by-hand"),
            std::vector<std::string>{"203.0.113.9"});
}

// 13.2: --proxy-protocol without --trusted-proxies refuses the start.
TEST(ProxyProtocol, Interface_13_2_NeedsTrustedProxies) {
  AuthdProcess authd(fast_hashing());
  std::string output;
  EXPECT_EQ(authd.cli({"serve", "--proxy-protocol", "--listen", "127.0.0.1:0"}, "", &output), 2)
      << output;
}

}  // namespace
}  // namespace authd::test
