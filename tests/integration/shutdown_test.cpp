// Graceful shutdown (interface.md 9.3): SIGTERM
// stops accepting, lets what is in flight finish, then the process exits 0.
//
// operations_test.cpp's Lifecycle tests cover one in-flight login and an
// idle keep-alive connection; this file covers several logins in flight at
// once (one hashing, the others waiting in the hashing queue, two more
// still uploading their body), and that new connections are refused while
// those are still being served.
#include <signal.h>

#include <memory>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "contract_support.hpp"
#include "harness.hpp"

namespace authd::test {
namespace {

// Complete log lines holding `event` (and `method`, when given).
std::size_t count_log_events(const AuthdProcess& authd, const std::string& event,
                             const std::string& method = "") {
  std::size_t count = 0;
  std::istringstream in(authd.log_text());
  std::string line;
  while (std::getline(in, line)) {
    if (line.find("\"event\":\"" + event + "\"") == std::string::npos) continue;
    if (!method.empty() && line.find("\"method\":\"" + method + "\"") == std::string::npos)
      continue;
    ++count;
  }
  return count;
}

bool connection_refused(unsigned short port) {
  try {
    HttpConnection probe(port);
    return false;
  } catch (const std::exception&) {
    return true;
  }
}

// 9.3: SIGTERM with several logins in flight: new connections are refused
// from the start of the drain, every login in flight (hashing, queued, or
// still being uploaded) completes with 200 and a token, the responses
// decided after the drain began carry Connection: close, every connection
// is then closed, and the process exits with status 0.
//
// Which responses must say Connection: close: the server decides it when
// the response is ready, so a login whose hash ended before the signal
// landed may rightly be keep-alive (the first one could, on a fast machine:
// asserting on it would be a race). The "late" logins below cannot: their
// last body byte is sent only once the listening socket is seen closed,
// which drain() does after it has set the draining flag, so their responses
// are decided after the drain began, whatever the timing.
TEST(Shutdown, Interface_9_3_SigtermLetsAllInFlightLoginsFinishAndRefusesNewConnections) {
  // Slow hashes on a single worker: the logins are still in flight (one
  // hashing, the rest queued) when the signal arrives.
  AuthdProcess authd({"--log-level", "debug", "--argon2-memory-kib", "65536", "--argon2-iterations",
                      "4", "--hash-workers", "1", "--hash-queue", "8"});
  authd.add_user(kEmail, kPassword);
  constexpr std::size_t kInFlight = 3;  // whole requests sent before the signal
  constexpr std::size_t kLate = 2;      // all but the last body byte before it
  constexpr std::size_t kLogins = kInFlight + kLate;
  std::string body = login_body(kEmail, kPassword);
  std::string request =
      "POST /login HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
      "Content-Length: " +
      std::to_string(body.size()) + "\r\n\r\n" + body;
  std::vector<std::unique_ptr<HttpConnection>> connections;
  for (std::size_t i = 0; i < kLogins; ++i) {
    connections.push_back(std::make_unique<HttpConnection>(authd.port()));
    connections.back()->send_raw(i < kInFlight ? request : request.substr(0, request.size() - 1));
  }
  // Every header has been read by the server (not just sent): no connection
  // is idle, so the drain waits for each of them.
  ASSERT_TRUE(eventually([&] {
    return count_log_events(authd, "request_started", "POST") >= kLogins;
  })) << authd.log_text();

  authd.signal(SIGTERM);
  ASSERT_TRUE(eventually([&] { return count_log_events(authd, "draining") > 0; }));
  // The listening socket is closed as the drain starts.
  ASSERT_TRUE(eventually([&] { return connection_refused(authd.port()); }))
      << "new connections were still accepted while draining";
  for (std::size_t i = kInFlight; i < kLogins; ++i)
    connections[i]->send_raw(request.substr(request.size() - 1));

  for (std::size_t i = 0; i < kLogins; ++i) {
    SCOPED_TRACE(i);
    HttpResponse response = connections[i]->read_response();
    EXPECT_EQ(response.status, 200) << response.body;
    EXPECT_FALSE(token_of(response).empty());
    if (i >= kInFlight) {
      EXPECT_FALSE(response.keep_alive);  // Connection: close while draining
    }
    EXPECT_TRUE(connections[i]->closed_by_server());
  }
  EXPECT_EQ(authd.wait_exit(), 0) << authd.log_text();
  EXPECT_TRUE(connection_refused(authd.port()));
  // The sessions of those logins were committed before the 200s.
  EXPECT_EQ(without_trailing_newlines(authd.sql("select count(*) from sessions")),
            std::to_string(kLogins));
}

// One hashing worker, no queue, and hashes slow enough to keep it busy.
const std::vector<std::string> kOneSlowWorker = {
    "--hash-workers",      "1",     "--hash-queue",        "0",
    "--argon2-memory-kib", "65536", "--argon2-iterations", "40"};

struct HeldBusyAnswer {
  std::unique_ptr<HttpConnection> hashing;
  std::unique_ptr<HttpConnection> refused;
};

// A login holding the one hashing worker of a server started with
// kOneSlowWorker, and a second login it refused with a 503 that it now holds
// (4.3): where both tests of a held 503 below start from.
void hold_a_busy_answer(AuthdProcess& authd, HeldBusyAnswer& held) {
  ASSERT_NE(authd.admin_port(), 0);
  authd.add_user(kEmail, kPassword);
  const std::string body = login_body(kEmail, kPassword);
  const std::string request =
      "POST /login HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
      "Content-Length: " +
      std::to_string(body.size()) + "\r\n\r\n" + body;
  held.hashing = std::make_unique<HttpConnection>(authd.port());
  held.hashing->send_raw(request);
  ASSERT_TRUE(eventually([&] { return metric(authd, "authd_hashing_busy_workers") == 1; }));
  held.refused = std::make_unique<HttpConnection>(authd.port());
  held.refused->send_raw(request);
  ASSERT_TRUE(eventually([&] { return metric(authd, "authd_hashing_rejected_total") == 1; }));
}

// 9.3 and 4.3: the 503 of a full hashing pool is held about a second after
// it is decided (api/hashing_busy.cpp), by the http layer. A drain that
// starts during that second sends it and closes the connection after it,
// and the answer says so, as every answer written after the drain began
// does: a client that read keep-alive would send its next request into a
// connection being closed. Meanwhile the drain lets the hashing login
// finish. (The hold is 0.5 s at least; the signal follows the 503's
// decision, seen in /metrics, by a poll's interval.)
TEST(Shutdown, Interface_9_3_ABusy503HeldWhenTheDrainStartsSaysConnectionClose) {
  AuthdProcess authd(kOneSlowWorker);
  HeldBusyAnswer held;
  ASSERT_NO_FATAL_FAILURE(hold_a_busy_answer(authd, held));
  HttpConnection& hashing = *held.hashing;
  HttpConnection& refused = *held.refused;

  authd.signal(SIGTERM);
  HttpResponse busy = refused.read_response();
  EXPECT_EQ(busy.status, 503) << busy.body;
  EXPECT_FALSE(busy.keep_alive) << "a held 503 written during the drain said keep-alive";
  EXPECT_TRUE(refused.closed_by_server());
  EXPECT_EQ(hashing.read_response().status, 200);
  EXPECT_EQ(authd.wait_exit(), 0) << authd.log_text();
}

// 9.3: a drain does not wait out a held 503's second: the answer goes as
// the drain begins, saying that the connection closes, and the client can
// retry on another instance at once. Shown with a drain time-out shorter
// than any hold (0.3 s against at least 0.5): a wait that the drain left
// running would outlast it, and the connection would be cut without an
// answer.
TEST(Shutdown, Interface_9_3_ADrainSendsAHeldBusy503AtOnce) {
  std::vector<std::string> args = kOneSlowWorker;
  args.insert(args.end(), {"--drain-timeout", "300ms"});
  AuthdProcess authd(args);
  HeldBusyAnswer held;
  ASSERT_NO_FATAL_FAILURE(hold_a_busy_answer(authd, held));
  HttpConnection& refused = *held.refused;

  authd.signal(SIGTERM);
  HttpResponse busy = refused.read_response();
  EXPECT_EQ(busy.status, 503) << "the held answer was not sent before the drain ended";
  EXPECT_FALSE(busy.keep_alive);
  EXPECT_TRUE(refused.closed_by_server());
  // 0 or 3, as the hashing login ends before the time-out or is dropped by it.
  authd.wait_exit();
}

// 9.3: past --drain-timeout what is still in flight is dropped and the
// process exits, whichever connection thread holds it: two uploads that
// never finish, one on each io thread (connections are handed out in turn),
// do not keep it alive until their own header time-out. Its exit status
// (3) says that requests were dropped.
TEST(Shutdown, Interface_9_3_PastTheDrainTimeoutTheProcessExitsAnyway) {
  AuthdProcess authd({"--log-level", "debug", "--io-threads", "2", "--drain-timeout", "1s",
                      "--header-timeout", "120s"});
  const std::string unfinished =
      "POST /login HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
      "Content-Length: 100\r\n\r\n{";
  std::vector<std::unique_ptr<HttpConnection>> connections;
  for (int i = 0; i < 2; ++i) {
    connections.push_back(std::make_unique<HttpConnection>(authd.port()));
    connections.back()->send_raw(unfinished);
  }
  ASSERT_TRUE(eventually([&] { return count_log_events(authd, "request_started", "POST") >= 2; }))
      << authd.log_text();

  authd.signal(SIGTERM);
  // Well before the uploads' own 120 s time-out.
  ASSERT_TRUE(eventually([&] { return count_log_events(authd, "drained") > 0; }))
      << authd.log_text();
  EXPECT_EQ(count_log_events(authd, "drain_timeout"), 1u);
  EXPECT_EQ(authd.wait_exit(), 3) << authd.log_text();
}

// 9.3, past --drain-timeout: logins still queued for the one hashing worker
// are not worked off after the deadline (each would cost a full argon2id
// hash for an answer nobody reads): the queue is skipped, the log says how
// many, and the exit status says that requests were dropped.
TEST(Shutdown, Interface_9_3_QueuedHashesAreSkippedWhenTheDrainTimesOut) {
  AuthdProcess authd({"--drain-timeout", "1s", "--hash-workers", "1", "--hash-queue", "1000",
                      "--argon2-iterations", "8", "--login-client-limit", "1000000/1m",
                      "--login-email-limit", "1000000/1m"});
  // 60 logins, each a hash of t = 8 (about 0.2 s here): far more than one
  // worker hashes within the drain's 1 s.
  constexpr int kLogins = 60;
  std::vector<std::unique_ptr<HttpConnection>> connections;
  for (int i = 0; i < kLogins; ++i) {
    connections.push_back(std::make_unique<HttpConnection>(authd.port()));
    const std::string body = login_body("nobody@example.com", "a wrong password");
    connections.back()->send_raw(
        "POST /login HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
        "Content-Length: " +
        std::to_string(body.size()) + "\r\n\r\n" + body);
  }
  // Every login has reached the pool: hashing or queued.
  ASSERT_TRUE(eventually([&] {
    std::string body = send_request(authd.admin_port(), "GET", "/metrics").body;
    auto at = body.find("\nauthd_hashing_queue_depth ");
    return at != std::string::npos && std::stod(body.substr(at + 27)) >= kLogins - 10;
  })) << authd.log_text();

  authd.signal(SIGTERM);
  EXPECT_EQ(authd.wait_exit(), 3) << authd.log_text();
  std::size_t skipped = 0;
  for (const auto& line : log_lines(authd)) {
    if (line.value("event", "") == "stopped") skipped = line.value("skipped_hashes", 0u);
  }
  EXPECT_GT(skipped, 0u) << authd.log_text();
}

}  // namespace
}  // namespace authd::test
