// interface.md 13.4: authd as the token check of a gateway. GET /me names
// the account in Authd-User-Id; nginx (Debian's) runs the auth_request
// configuration of docs/guide/proxies-tls-gateways.md, read from that
// file, in front of a small service (tests/support/identity_echo.py) that
// echoes what it gets.
// With cookie sessions, the Origin rule of 13.5 is applied to the original
// request that a trusted gateway names in X-Original-Method and
// X-Original-Origin, so the service gets authd's CSRF protection.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <thread>

#include "contract_support.hpp"
#include "harness.hpp"
#include "reverse_proxy.hpp"
#include "source_paths.hpp"

namespace authd::test {
namespace {

std::string text_of(const std::string& path) {
  std::ifstream in(path);
  std::stringstream out;
  out << in.rdbuf();
  return out.str();
}

void replace_all(std::string& text, const std::string& from, const std::string& to) {
  for (std::size_t at = text.find(from); at != std::string::npos; at = text.find(from, at)) {
    text.replace(at, from.size(), to);
    at += to.size();
  }
}

// The nginx block of docs/guide/proxies-tls-gateways.md that uses
// auth_request, on this test's ports: what the guide shows is what runs.
std::string documented_gateway(unsigned short port, unsigned short authd_port,
                               unsigned short service_port) {
  std::string guide = text_of(source_path("docs/guide/proxies-tls-gateways.md"));
  std::string block;
  for (std::size_t at = guide.find("```nginx\n"); at != std::string::npos;
       at = guide.find("```nginx\n", at + 1)) {
    std::size_t start = at + 9;
    std::size_t end = guide.find("```", start);
    std::string candidate = guide.substr(start, end - start);
    if (candidate.find("auth_request") != std::string::npos) block = candidate;
  }
  if (block.empty())
    throw std::runtime_error("no auth_request block in docs/guide/proxies-tls-gateways.md");
  replace_all(block, "listen 443 ssl;", "listen 127.0.0.1:" + std::to_string(port) + ";");
  replace_all(block, "127.0.0.1:8080", "127.0.0.1:" + std::to_string(authd_port));
  replace_all(block, "127.0.0.1:9000", "127.0.0.1:" + std::to_string(service_port));
  return block;
}

// tests/support/identity_echo.py in a directory of its own.
class IdentityEcho {
 public:
  IdentityEcho() {
    char pattern[] = "/tmp/authd-echo-XXXXXX";
    if (mkdtemp(pattern) == nullptr) throw std::runtime_error("mkdtemp failed");
    directory_ = pattern;
    std::string port_file = directory_ + "/port";
    std::string echo_script = source_path("tests/support/identity_echo.py");
    pid_ = fork();
    if (pid_ < 0) throw std::runtime_error("fork failed");
    if (pid_ == 0) {
      execl("/usr/bin/python3", "/usr/bin/python3", echo_script.c_str(), "--port-file",
            port_file.c_str(), static_cast<char*>(nullptr));
      _exit(127);
    }
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(15);
    while (port_ == 0 && std::chrono::steady_clock::now() < deadline) {
      std::string text = text_of(port_file);
      if (!text.empty() && text.back() == '\n') {
        port_ = static_cast<unsigned short>(std::stoi(text));
      } else {
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
      }
    }
    if (port_ == 0) {
      stop();
      throw std::runtime_error("the identity echo service did not start");
    }
  }
  ~IdentityEcho() {
    stop();
    std::error_code ec;
    std::filesystem::remove_all(directory_, ec);
  }
  IdentityEcho(const IdentityEcho&) = delete;
  IdentityEcho& operator=(const IdentityEcho&) = delete;

  unsigned short port() const { return port_; }

 private:
  void stop() {
    if (pid_ <= 0) return;
    ::kill(pid_, SIGTERM);
    int status = 0;
    waitpid(pid_, &status, 0);
    pid_ = -1;
  }

  std::string directory_;
  int pid_ = -1;
  unsigned short port_ = 0;
};

// The documented gateway in front of `service`, checking tokens with `authd`.
NginxSite gateway_site(const AuthdProcess& authd, const IdentityEcho& service) {
  unsigned short authd_port = authd.port();
  unsigned short service_port = service.port();
  // Without a token, /healthz (any path) gets authd's 401 from the gateway.
  return NginxSite{
      [=](unsigned short port) { return documented_gateway(port, authd_port, service_port); }, 401};
}

Headers bearer(const std::string& token) { return {{"Authorization", "Bearer " + token}}; }

// 13.4: the 200 of /me names the account in Authd-User-Id, once; no other
// answer of /me carries it.
TEST(Gateway, Interface_13_4_MeNamesTheUserInAuthdUserId) {
  AuthdProcess authd(fast_hashing());
  authd.add_user(kEmail, kPassword);
  std::string token = authd.login(kEmail, kPassword);
  HttpResponse me = get_with_token(authd.port(), "/me", token);
  ASSERT_EQ(me.status, 200) << me.body;
  EXPECT_EQ(me.header_count("authd-user-id"), 1u);
  EXPECT_EQ(me.header("authd-user-id"), me.json()["id"].get<std::string>());

  HttpResponse unknown = get_with_token(authd.port(), "/me", "authd_unknown");
  EXPECT_EQ(unknown.status, 401);
  EXPECT_EQ(unknown.header_count("authd-user-id"), 0u);
  HttpResponse none = send_request(authd.port(), "GET", "/me");
  EXPECT_EQ(none.status, 401);
  EXPECT_EQ(none.header_count("authd-user-id"), 0u);
}

// 13.4: behind nginx's auth_request, the service gets the caller's id (and
// never one the client wrote); a request without a live token is refused
// by the gateway with authd's 401 and never reaches the service.
TEST(Gateway, Interface_13_4_NginxAuthRequestPassesTheUserIdToTheService) {
  AuthdProcess authd(fast_hashing());
  authd.add_user(kEmail, kPassword);
  std::string token = authd.login(kEmail, kPassword);
  std::string id = get_with_token(authd.port(), "/me", token).json()["id"];
  IdentityEcho service;
  NginxProxy gateway(gateway_site(authd, service));

  HttpConnection client(gateway.port());
  HttpResponse get = client.request("GET", "/reports?year=2026", bearer(token));
  ASSERT_EQ(get.status, 200) << get.body << "\n" << gateway.error_log();
  EXPECT_EQ(get.json()["service"], "identity-echo");
  EXPECT_EQ(get.json()["path"], "/reports?year=2026");
  EXPECT_EQ(get.json()["authdUserId"], nlohmann::json::array({id}));

  // A POST is checked with a GET /me too, and its body reaches the service.
  Headers post_headers = bearer(token);
  post_headers.push_back({"Content-Type", "application/json"});
  HttpResponse post = client.request("POST", "/reports", post_headers, R"({"a":1})");
  ASSERT_EQ(post.status, 200) << post.body << "\n" << gateway.error_log();
  EXPECT_EQ(post.json()["method"], "POST");
  EXPECT_EQ(post.json()["authdUserId"], nlohmann::json::array({id}));

  // A forged identity is replaced by the real one, or refused with no token.
  Headers forged = bearer(token);
  forged.push_back({"Authd-User-Id", "someone-else"});
  HttpResponse replaced = client.request("GET", "/", forged);
  ASSERT_EQ(replaced.status, 200) << replaced.body;
  EXPECT_EQ(replaced.json()["authdUserId"], nlohmann::json::array({id}));

  HttpResponse anonymous =
      send_request(gateway.port(), "GET", "/", {{"Authd-User-Id", "someone-else"}});
  EXPECT_EQ(anonymous.status, 401);
  EXPECT_EQ(anonymous.header("www-authenticate"), R"(Bearer realm="authd")");
  EXPECT_EQ(anonymous.body.find("identity-echo"), std::string::npos);
  HttpResponse unknown = send_request(gateway.port(), "GET", "/", bearer("authd_unknown"));
  EXPECT_EQ(unknown.status, 401);
  EXPECT_EQ(unknown.body.find("identity-echo"), std::string::npos);
}

// 13.4: nothing is cached on the way: a token revoked by /logout is refused
// at the gateway on its very next request, on the same connection.
TEST(Gateway, Interface_13_4_RevokedTokenIsRefusedAtTheGatewayAtOnce) {
  AuthdProcess authd(fast_hashing());
  authd.add_user(kEmail, kPassword);
  std::string token = authd.login(kEmail, kPassword);
  std::string other = authd.login(kEmail, kPassword);
  IdentityEcho service;
  NginxProxy gateway(gateway_site(authd, service));

  HttpConnection client(gateway.port());
  ASSERT_EQ(client.request("GET", "/", bearer(token)).status, 200) << gateway.error_log();
  ASSERT_EQ(post_with_token(authd.port(), "/logout", token).status, 200);
  HttpResponse revoked = client.request("GET", "/", bearer(token));
  EXPECT_EQ(revoked.status, 401);
  EXPECT_EQ(revoked.header("www-authenticate"), R"(Bearer error="invalid_token")");
  EXPECT_EQ(revoked.body.find("identity-echo"), std::string::npos);
  // The user's other session is still let through.
  EXPECT_EQ(client.request("GET", "/", bearer(other)).status, 200);
}

const std::string kCookieName = "__Host-authd_session";
const std::string kAppOrigin = "https://app.example.com";
const std::string kForeignOrigin = "https://evil.example.net";

// Cookie sessions behind a gateway on this host: nginx is a trusted proxy,
// and the service's origin is an allowed one.
std::vector<std::string> gateway_with_cookies(const std::string& trusted_proxies) {
  std::vector<std::string> args = fast_hashing();
  args.insert(args.end(), {"--session-cookie", kCookieName, "--cors-origins", kAppOrigin,
                           "--trusted-proxies", trusted_proxies});
  return args;
}

Headers cookie(const std::string& token, Headers more = {}) {
  more.push_back({"Cookie", kCookieName + "=" + token});
  return more;
}

// 13.4: the subrequest of a trusted proxy stands for the request it checks.
// A state-changing one authenticated by the cookie needs a trusted
// X-Original-Origin (403 otherwise, with no identity); a safe one, or one
// with a bearer token, needs none; several X-Original-Method values count
// as state-changing.
TEST(Gateway, Interface_13_4_OriginalMethodAndOriginFromTrustedProxyMeetTheOriginRule) {
  AuthdProcess authd(gateway_with_cookies("127.0.0.1/32"));
  authd.add_user(kEmail, kPassword);
  std::string token = authd.login(kEmail, kPassword);
  auto me = [&](Headers headers) { return send_request(authd.port(), "GET", "/me", headers); };

  HttpResponse foreign =
      me(cookie(token, {{"X-Original-Method", "POST"}, {"X-Original-Origin", kForeignOrigin}}));
  EXPECT_EQ(foreign.status, 403) << foreign.body;
  EXPECT_EQ(foreign.header_count("authd-user-id"), 0u);
  EXPECT_EQ(me(cookie(token, {{"X-Original-Method", "DELETE"}})).status, 403) << "no origin";
  EXPECT_EQ(me(cookie(token, {{"X-Original-Method", "POST"},
                              {"X-Original-Origin", kForeignOrigin},
                              {"Origin", kAppOrigin}}))
                .status,
            403)
      << "the subrequest's own Origin does not stand for the original's";
  EXPECT_EQ(me(cookie(token, {{"X-Original-Method", "GET"},
                              {"X-Original-Method", "GET"},
                              {"X-Original-Origin", kForeignOrigin}}))
                .status,
            403);

  HttpResponse allowed =
      me(cookie(token, {{"X-Original-Method", "POST"}, {"X-Original-Origin", kAppOrigin}}));
  EXPECT_EQ(allowed.status, 200) << allowed.body;
  EXPECT_EQ(allowed.header_count("authd-user-id"), 1u);
  EXPECT_EQ(me(cookie(token, {{"X-Original-Method", "GET"}, {"X-Original-Origin", kForeignOrigin}}))
                .status,
            200);
  Headers by_bearer = bearer(token);
  by_bearer.push_back({"X-Original-Method", "POST"});
  by_bearer.push_back({"X-Original-Origin", kForeignOrigin});
  EXPECT_EQ(me(by_bearer).status, 200) << "a page cannot make a browser send a bearer token";
}

// 13.4: from a peer that is not a trusted proxy, X-Original-Method and
// X-Original-Origin are ignored: GET /me is a GET.
TEST(Gateway, Interface_13_4_OriginalHeadersFromOtherPeersAreIgnored) {
  AuthdProcess authd(gateway_with_cookies("10.0.0.0/8"));
  authd.add_user(kEmail, kPassword);
  std::string token = authd.login(kEmail, kPassword);
  HttpResponse me = send_request(
      authd.port(), "GET", "/me",
      cookie(token, {{"X-Original-Method", "POST"}, {"X-Original-Origin", kForeignOrigin}}));
  EXPECT_EQ(me.status, 200) << me.body;
}

// 13.4, end to end: behind the documented nginx gateway, a browser's
// cookie-authenticated POST or DELETE from a foreign page (or with no
// Origin, or a forged X-Original-Origin) is refused at the gateway and
// never reaches the service; from the service's own origin, and any GET,
// it passes with the identity; a bearer token needs no Origin.
TEST(Gateway, Interface_13_4_NginxGatewayRefusesCrossOriginCookieRequests) {
  AuthdProcess authd(gateway_with_cookies("127.0.0.1/32"));
  authd.add_user(kEmail, kPassword);
  std::string token = authd.login(kEmail, kPassword);
  std::string id = get_with_token(authd.port(), "/me", token).json()["id"];
  IdentityEcho service;
  NginxProxy gateway(gateway_site(authd, service));
  HttpConnection client(gateway.port());
  auto refused = [&](const std::string& method, Headers headers) {
    HttpResponse response = client.request(method, "/reports", headers, R"({"a":1})");
    EXPECT_EQ(response.status, 403) << method << " " << response.body;
    EXPECT_EQ(response.body.find("identity-echo"), std::string::npos);
  };
  refused("POST", cookie(token, {{"Origin", kForeignOrigin}}));
  refused("DELETE", cookie(token, {{"Origin", kForeignOrigin}}));
  refused("POST", cookie(token));
  refused("POST", cookie(token, {{"X-Original-Origin", kAppOrigin}}));

  HttpResponse post =
      client.request("POST", "/reports", cookie(token, {{"Origin", kAppOrigin}}), R"({"a":1})");
  ASSERT_EQ(post.status, 200) << post.body << "\n" << gateway.error_log();
  EXPECT_EQ(post.json()["method"], "POST");
  EXPECT_EQ(post.json()["authdUserId"], nlohmann::json::array({id}));
  HttpResponse get = client.request("GET", "/reports", cookie(token, {{"Origin", kForeignOrigin}}));
  EXPECT_EQ(get.status, 200) << get.body;
  Headers by_bearer = bearer(token);
  by_bearer.push_back({"Origin", kForeignOrigin});
  EXPECT_EQ(client.request("POST", "/reports", by_bearer, R"({"a":1})").status, 200);
}

}  // namespace
}  // namespace authd::test
