// interface.md 13.3: HTTPS on both listeners with --tls-cert and --tls-key,
// TLS 1.2 or later, Strict-Transport-Security on every answer, and SIGHUP
// re-reading the files with no connection dropped or refused. Certificates
// are made at test time in the test's directory (tests/integration/
// tls_client.hpp); the client is OpenSSL through Boost.Asio.
#include <openssl/ssl.h>
#include <signal.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <thread>

#include <gtest/gtest.h>

#include "contract_support.hpp"
#include "harness.hpp"
#include "load_balancer.hpp"
#include "tls_client.hpp"

namespace authd::test {
namespace {

constexpr std::string_view kHsts = "max-age=63072000";

// A directory for certificates, made before the server that uses them.
class CertificateDirectory {
 public:
  CertificateDirectory() {
    char pattern[] = "/tmp/authd-tls-XXXXXX";
    if (::mkdtemp(pattern) == nullptr) throw std::runtime_error("mkdtemp failed");
    path_ = pattern;
  }
  ~CertificateDirectory() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  CertificateDirectory(const CertificateDirectory&) = delete;
  CertificateDirectory& operator=(const CertificateDirectory&) = delete;

  const std::string& path() const { return path_; }
  // The files authd is started with: "one" installed there.
  TestCertificate live() const { return {path_ + "/live.crt", path_ + "/live.key"}; }

 private:
  std::string path_;
};

void write_file(const std::string& path, const std::string& text) {
  std::ofstream(path, std::ios::trunc) << text;
}

std::string read_text(const std::string& path) {
  std::ifstream in(path);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// Replaces a file whole, the way certbot's renewal swaps its links: a reader
// sees the old file or the new one, never half of it.
void replace_file(const std::string& path, const std::string& text) {
  write_file(path + ".new", text);
  std::filesystem::rename(path + ".new", path);
}

void install(const TestCertificate& from, const TestCertificate& live) {
  replace_file(live.cert, read_text(from.cert));
  replace_file(live.key, read_text(from.key));
}

std::vector<std::string> with_tls(const TestCertificate& files,
                                  std::vector<std::string> more = {}) {
  std::vector<std::string> args = fast_hashing();
  args.insert(args.end(), {"--tls-cert", files.cert, "--tls-key", files.key});
  args.insert(args.end(), more.begin(), more.end());
  return args;
}

std::size_t count_events(const AuthdProcess& authd, const std::string& event) {
  std::size_t count = 0;
  for (const auto& line : log_lines(authd)) count += line.value("event", "") == event ? 1 : 0;
  return count;
}

// Polls the log (bounded) until `event` was logged `count` times.
bool wait_for_event(const AuthdProcess& authd, const std::string& event, std::size_t count) {
  for (int i = 0; i < 500; ++i) {
    if (count_events(authd, event) >= count) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return false;
}

std::string served_name(unsigned short port) { return TlsConnection(port).peer_common_name(); }

// 13.3: both listeners answer over HTTPS only, with HSTS on every answer
// (an error too), on a kept-alive connection as on a new one.
TEST(Tls, Interface_13_3_BothListenersServeHttpsWithHsts) {
  CertificateDirectory certificates;
  TestCertificate one = make_certificate(certificates.path(), "authd-one");
  AuthdProcess authd(with_tls(one));
  ASSERT_NE(authd.admin_port(), 0);
  for (unsigned short port : {authd.port(), authd.admin_port()}) {
    TlsConnection connection(port);
    EXPECT_EQ(connection.peer_common_name(), "authd-one");
    for (const char* target : {"/healthz", "/healthz", "/no-such-route"}) {
      HttpResponse response = connection.request("GET", target);
      EXPECT_EQ(response.status, std::string(target) == "/healthz" ? 200 : 404) << target;
      EXPECT_EQ(response.header("strict-transport-security"), kHsts) << port << target;
      EXPECT_EQ(response.header_count("strict-transport-security"), 1u);
    }
  }
  authd.add_user(kEmail, kPassword);
  TlsConnection connection(authd.port());
  HttpResponse login = connection.request("POST", "/login", {{"Content-Type", "application/json"}},
                                          login_body(kEmail, kPassword));
  EXPECT_EQ(login.status, 200) << login.body;
  EXPECT_EQ(login.header("strict-transport-security"), kHsts);
}

// 13.3: plain HTTP to either listener gets no HTTP answer at all.
TEST(Tls, Interface_13_3_PlainHttpGetsNoAnswer) {
  CertificateDirectory certificates;
  AuthdProcess authd(with_tls(make_certificate(certificates.path(), "authd-one")));
  for (unsigned short port : {authd.port(), authd.admin_port()}) {
    HttpConnection plain(port);
    plain.send_raw("GET /healthz HTTP/1.1\r\nHost: a\r\n\r\n");
    EXPECT_EQ(plain.read_response().status, 0) << port;
  }
}

// 13.3: TLS 1.0 and 1.1 are refused (by the server: the client offers them
// at its lowest security level), 1.2 and 1.3 accepted, on both listeners.
TEST(Tls, Interface_13_3_OnlyTls12AndLaterAreAccepted) {
  CertificateDirectory certificates;
  AuthdProcess authd(with_tls(make_certificate(certificates.path(), "authd-one")));
  for (unsigned short port : {authd.port(), authd.admin_port()}) {
    for (int old : {TLS1_VERSION, TLS1_1_VERSION}) {
      std::string error;
      EXPECT_FALSE(handshake_succeeds(port, {.min_version = old, .max_version = old}, &error))
          << port << " accepted version " << old;
    }
    TlsConnection v12(port, {.min_version = TLS1_2_VERSION, .max_version = TLS1_2_VERSION});
    EXPECT_EQ(v12.protocol(), "TLSv1.2");
    EXPECT_EQ(v12.request("GET", "/healthz").status, 200);
    TlsConnection v13(port, {.min_version = TLS1_3_VERSION});
    EXPECT_EQ(v13.protocol(), "TLSv1.3");
    EXPECT_EQ(v13.request("GET", "/healthz").status, 200);
  }
}

// Requests without a pause, each on a new connection or all on one
// kept-alive connection, counting answers and failures, until stopped.
class Load {
 public:
  Load(unsigned short port, bool keep_alive)
      : thread_([this, port, keep_alive] { run(port, keep_alive); }) {}
  ~Load() { stop(); }
  Load(const Load&) = delete;
  Load& operator=(const Load&) = delete;

  void stop() {
    stopping_ = true;
    if (thread_.joinable()) thread_.join();
  }
  int answered() const { return answered_; }
  int failed() const { return failed_; }
  std::string first_failure() {
    std::lock_guard lock(mutex_);
    return first_failure_;
  }
  // The names of the certificates the kept-alive connection saw.
  std::string names_seen() {
    std::lock_guard lock(mutex_);
    return names_;
  }
  // Waits (bounded) until `more` answers came after the call.
  bool wait_for_answers(int more) {
    int target = answered_ + more;
    for (int i = 0; i < 3000 && answered_ < target && failed_ == 0; ++i)
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    return answered_ >= target;
  }

 private:
  void run(unsigned short port, bool keep_alive) {
    std::unique_ptr<TlsConnection> kept;
    while (!stopping_) {
      try {
        if (!kept || !keep_alive) kept = std::make_unique<TlsConnection>(port);
        HttpResponse response = kept->request("GET", "/healthz");
        if (response.status != 200) throw std::runtime_error(std::to_string(response.status));
        if (keep_alive) note_name(kept->peer_common_name());
        ++answered_;
      } catch (const std::exception& e) {
        ++failed_;
        std::lock_guard lock(mutex_);
        if (first_failure_.empty()) first_failure_ = e.what();
        kept.reset();
      }
    }
  }
  void note_name(const std::string& name) {
    std::lock_guard lock(mutex_);
    if (names_.find(name) == std::string::npos) names_ += (names_.empty() ? "" : ",") + name;
  }

  std::atomic<bool> stopping_{false};
  std::atomic<int> answered_{0};
  std::atomic<int> failed_{0};
  std::mutex mutex_;
  std::string first_failure_;
  std::string names_;
  std::thread thread_;
};

// 13.3: SIGHUP with new files while clients keep requesting, on new
// connections and on a kept-alive one: not one request fails, new
// connections then get the new certificate on both listeners, and the
// kept-alive connection carries on with the one it started with.
TEST(Tls, Interface_13_3_SighupUnderLoadDropsNothingAndServesTheNewCertificate) {
  CertificateDirectory certificates;
  TestCertificate one = make_certificate(certificates.path(), "authd-one");
  TestCertificate two = make_certificate(certificates.path(), "authd-two");
  install(one, certificates.live());
  AuthdProcess authd(with_tls(certificates.live()));
  Load fresh(authd.port(), false);
  Load kept(authd.port(), true);
  ASSERT_TRUE(fresh.wait_for_answers(20)) << fresh.first_failure();
  ASSERT_TRUE(kept.wait_for_answers(20)) << kept.first_failure();

  install(two, certificates.live());
  authd.signal(SIGHUP);
  ASSERT_TRUE(wait_for_event(authd, "tls_reloaded", 1)) << authd.log_text();
  EXPECT_EQ(served_name(authd.port()), "authd-two");
  EXPECT_EQ(served_name(authd.admin_port()), "authd-two");
  EXPECT_TRUE(fresh.wait_for_answers(20)) << fresh.first_failure();
  EXPECT_TRUE(kept.wait_for_answers(20)) << kept.first_failure();
  fresh.stop();
  kept.stop();
  EXPECT_EQ(fresh.failed(), 0) << fresh.first_failure();
  EXPECT_EQ(kept.failed(), 0) << kept.first_failure();
  EXPECT_EQ(kept.names_seen(), "authd-one");
  EXPECT_TRUE(authd.running());
}

// 13.3: a reload whose files fail (a certificate that is not one, a key
// that is not one, a key of another certificate) keeps the certificate in
// force and logs an error that quotes no key; a good pair afterwards is
// taken.
TEST(Tls, Interface_13_3_ReloadOfBadFilesKeepsTheOldCertificate) {
  CertificateDirectory certificates;
  TestCertificate one = make_certificate(certificates.path(), "authd-one");
  TestCertificate two = make_certificate(certificates.path(), "authd-two");
  TestCertificate live = certificates.live();
  install(one, live);
  AuthdProcess authd(with_tls(live));
  const std::string key_one = read_text(one.key);
  const std::string key_two = read_text(two.key);

  struct Breakage {
    std::string what;
    std::string cert;
    std::string key;
  };
  const std::vector<Breakage> breakages = {
      {"certificate garbage", "not a certificate\n", key_one},
      {"key garbage", read_text(one.cert), "-----BEGIN PRIVATE KEY-----\nAAAA\n"},
      {"mismatched pair", read_text(two.cert), key_one},
  };
  std::size_t failures = 0;
  for (const Breakage& broken : breakages) {
    replace_file(live.cert, broken.cert);
    replace_file(live.key, broken.key);
    authd.signal(SIGHUP);
    ASSERT_TRUE(wait_for_event(authd, "tls_reload_failed", ++failures)) << broken.what << "\n"
                                                                        << authd.log_text();
    EXPECT_EQ(served_name(authd.port()), "authd-one") << broken.what;
    EXPECT_EQ(served_name(authd.admin_port()), "authd-one") << broken.what;
  }
  EXPECT_EQ(count_events(authd, "tls_reloaded"), 0u);
  std::string log = authd.log_text();
  for (const std::string& key : {key_one, key_two}) {
    std::string body_line = key.substr(key.find('\n') + 1, 40);
    EXPECT_EQ(log.find(body_line), std::string::npos) << "the log quotes a key";
  }

  install(two, live);
  authd.signal(SIGHUP);
  ASSERT_TRUE(wait_for_event(authd, "tls_reloaded", 1)) << authd.log_text();
  EXPECT_EQ(served_name(authd.port()), "authd-two");
}

// 13.3: a file that cannot be loaded at start stops it like any bad
// setting (exit 2, bad_configuration naming the file and the reason);
// so does a certificate without its key or a key without its certificate.
TEST(Tls, Interface_13_3_BadFilesOrAMissingHalfStopTheStart) {
  CertificateDirectory certificates;
  TestCertificate one = make_certificate(certificates.path(), "authd-one");
  TestCertificate two = make_certificate(certificates.path(), "authd-two");
  const std::string garbage = certificates.path() + "/garbage.pem";
  write_file(garbage, "not PEM at all\n");
  const std::string missing = certificates.path() + "/missing.pem";
  struct Start {
    std::vector<std::string> args;
    std::string named;  // what the error names
  };
  const std::vector<Start> starts = {
      {{"--tls-cert", missing, "--tls-key", one.key}, missing},
      {{"--tls-cert", one.cert, "--tls-key", missing}, missing},
      {{"--tls-cert", garbage, "--tls-key", one.key}, garbage},
      {{"--tls-cert", one.cert, "--tls-key", garbage}, garbage},
      {{"--tls-cert", one.cert, "--tls-key", two.key}, two.key},
      {{"--tls-cert", one.cert}, "--tls-key"},
      {{"--tls-key", one.key}, "--tls-cert"},
  };
  AuthdProcess authd(fast_hashing());
  const std::string key_line = read_text(one.key).substr(28, 40);
  for (const Start& start : starts) {
    std::vector<std::string> args = {"serve", "--listen", "127.0.0.1:0", "--admin-listen", "off"};
    args.insert(args.end(), start.args.begin(), start.args.end());
    std::string out, err;
    EXPECT_EQ(authd.cli_streams(args, "", &out, &err), 2) << start.named << "\n" << err;
    EXPECT_NE(err.find("bad_configuration"), std::string::npos) << err;
    EXPECT_NE(err.find(start.named), std::string::npos) << err;
    EXPECT_EQ(err.find(key_line), std::string::npos) << "the error quotes the key";
  }
}

// 13.3 and 13.2: behind a balancer the PROXY header comes first, in clear
// (here in one TCP segment with the start of the ClientHello), then TLS;
// the client it names is the one logged.
TEST(Tls, Interface_13_3_ProxyHeaderComesBeforeTheHandshake) {
  CertificateDirectory certificates;
  AuthdProcess authd(with_tls(make_certificate(certificates.path(), "authd-one"),
                              {"--proxy-protocol", "--trusted-proxies", "127.0.0.1/32"}));
  TlsConnection proxied(authd.port(), {.prefix = "PROXY TCP4 203.0.113.9 127.0.0.1 5000 8080\r\n"});
  EXPECT_EQ(proxied.request("GET", "/healthz", {{"X-Request-Id", "through-tls"}}).status, 200);
  std::string client;
  for (int i = 0; i < 500 && client.empty(); ++i) {
    for (const auto& line : log_lines(authd))
      if (line.value("request_id", "") == "through-tls") client = line.value("client", "");
    if (client.empty()) std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  EXPECT_EQ(client, "203.0.113.9");
  // Without the header the handshake never starts.
  EXPECT_FALSE(handshake_succeeds(authd.port(), {}, nullptr));
}

// 13.3 behind 13.2 with a real HAProxy (Debian's) in TCP mode: TLS passes
// through it untouched after its PROXY header, in both versions, and each
// request is the real client's.
void tls_behind_haproxy(const std::string& send_proxy) {
  CertificateDirectory certificates;
  AuthdProcess authd(with_tls(make_certificate(certificates.path(), "authd-one"),
                              {"--proxy-protocol", "--trusted-proxies", "127.0.0.1/32"}));
  HaProxy haproxy(authd.port(), send_proxy, true);
  TlsConnection client(haproxy.port(), {.source_address = "127.0.0.7"});
  EXPECT_EQ(client.peer_common_name(), "authd-one");
  HttpResponse res = client.request("GET", "/healthz", {{"X-Request-Id", "via-haproxy"}});
  EXPECT_EQ(res.status, 200);
  EXPECT_FALSE(res.header("strict-transport-security").empty());
  std::string logged;
  for (int i = 0; i < 500 && logged.empty(); ++i) {
    for (const auto& line : log_lines(authd))
      if (line.value("request_id", "") == "via-haproxy") logged = line.value("client", "");
    if (logged.empty()) std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  EXPECT_EQ(logged, "127.0.0.7") << haproxy.output();
}

TEST(Tls, Interface_13_3_And_13_2_HttpsPassesThroughHaProxyV1) { tls_behind_haproxy("send-proxy"); }

TEST(Tls, Interface_13_3_And_13_2_HttpsPassesThroughHaProxyV2) {
  tls_behind_haproxy("send-proxy-v2");
}

// 13.3 and 1: the handshake counts against the header time-out, so a
// client that starts one and stalls is closed unanswered.
TEST(Tls, Interface_13_3_StalledHandshakeIsClosedAtTheHeaderTimeout) {
  CertificateDirectory certificates;
  AuthdProcess authd(
      with_tls(make_certificate(certificates.path(), "authd-one"), {"--header-timeout", "1s"}));
  HttpConnection stalled(authd.port());
  // A TLS record header announcing a 512-byte ClientHello, and nothing more.
  stalled.send_raw(std::string("\x16\x03\x01\x02\x00", 5));
  EXPECT_EQ(stalled.read_response().status, 0);
  EXPECT_TRUE(stalled.closed_by_server());
}

// 13.3: without TLS, SIGHUP has nothing to re-read; it no longer ends the
// process as its default action would.
TEST(Tls, Interface_13_3_SighupWithoutTlsKeepsServing) {
  AuthdProcess authd(fast_hashing());
  authd.signal(SIGHUP);
  ASSERT_TRUE(wait_for_event(authd, "reload_ignored", 1)) << authd.log_text();
  EXPECT_EQ(send_request(authd.port(), "GET", "/healthz").status, 200);
  EXPECT_TRUE(authd.running());
}

}  // namespace
}  // namespace authd::test
