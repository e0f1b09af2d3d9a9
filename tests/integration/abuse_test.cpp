// Hostile clients over real sockets (interface.md 1.5 and 1.8: limits,
// time-outs, malformed requests). Every test runs
// the abuse and, while the abusive connection is still open, a normal client
// that must be served: a login, GET /me with its token and GET /healthz. The
// servers run with ONE I/O thread, so an abuser that held a thread would
// starve the normal client. Each abuse ends in the right 4xx or a time-out.
//
// The plain protocol cases (one stalled header, one stalled body, CL+TE,
// two Content-Lengths, 414/431/505) are in http_protocol_test.cpp; this file
// adds the slow, massive and smuggling variants.
#include <fcntl.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/resource.h>

#include <chrono>
#include <thread>

#include "contract_support.hpp"
#include "harness.hpp"
#include "http_contract_util.hpp"

namespace authd::test {
namespace {

using namespace http_contract;
using std::chrono::milliseconds;

const std::string kNormalEmail = "normal@example.com";
const std::string kNormalPassword = "normal client password";

// A server with one I/O thread, short time-outs and the normal client's
// account.
std::unique_ptr<AuthdProcess> abuse_server(const std::string& header_timeout = "1s") {
  std::vector<std::string> args = fast_hashing();
  args.insert(args.end(), {"--io-threads", "1", "--header-timeout", header_timeout,
                           "--idle-timeout", "2s", "--login-client-limit", "10000/1m"});
  auto authd = std::make_unique<AuthdProcess>(args);
  authd->add_user(kNormalEmail, kNormalPassword);
  return authd;
}

// The normal client: a login, /me with the token, /healthz, each on its own
// connection, all answered correctly.
void expect_normal_client_served(const AuthdProcess& authd) {
  HttpResponse login = post_json(authd.port(), "/login", login_body(kNormalEmail, kNormalPassword));
  ASSERT_EQ(login.status, 200) << login.body;
  std::string token = token_of(login);
  HttpResponse me = get_with_token(authd.port(), "/me", token);
  EXPECT_EQ(me.status, 200) << me.body;
  EXPECT_EQ(me.json().value("email", ""), kNormalEmail);
  EXPECT_EQ(send_request(authd.port(), "GET", "/healthz").status, 200);
}

// A raw TCP client that never blocks on reads, for abusers that keep
// sending while they watch for the server's answer.
class RawClient {
 public:
  explicit RawClient(unsigned short port) {
    fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_port = htons(port);
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (fd_ < 0 || ::connect(fd_, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0)
      throw std::runtime_error("connect failed");
    // Each send() leaves at once, so that dripped bytes are not coalesced.
    int one = 1;
    ::setsockopt(fd_, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  }
  ~RawClient() {
    if (fd_ >= 0) ::close(fd_);
  }
  RawClient(const RawClient&) = delete;
  RawClient& operator=(const RawClient&) = delete;

  // False once the server has closed or reset the connection.
  bool send(std::string_view bytes) {
    while (!bytes.empty()) {
      ssize_t n = ::send(fd_, bytes.data(), bytes.size(), MSG_NOSIGNAL);
      if (n <= 0) return false;
      bytes.remove_prefix(static_cast<std::size_t>(n));
    }
    return true;
  }

  // Takes whatever has arrived, waiting at most `wait`; true once the
  // server has closed the connection (end of stream or reset).
  bool poll_closed(milliseconds wait = milliseconds(0)) {
    if (closed_) return true;
    pollfd p{fd_, POLLIN, 0};
    if (::poll(&p, 1, static_cast<int>(wait.count())) <= 0) return false;
    char chunk[65536];
    ssize_t n = ::recv(fd_, chunk, sizeof chunk, MSG_DONTWAIT);
    if (n > 0) {
      received_.append(chunk, static_cast<std::size_t>(n));
      return false;
    }
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return false;
    closed_ = true;
    return true;
  }

  // Waits (bounded: 30 s guards against a hang) until the server closes.
  bool wait_closed() {
    for (int i = 0; i < 3000 && !poll_closed(milliseconds(10)); ++i) {
    }
    return closed_;
  }

  // The status of the first response received so far (0: none yet).
  int first_status() const {
    if (received_.rfind("HTTP/1.", 0) != 0 || received_.size() < 12) return 0;
    if (received_.find("\r\n\r\n") == std::string::npos) return 0;
    return std::stoi(received_.substr(9, 3));
  }

  const std::string& received() const { return received_; }

 private:
  int fd_ = -1;
  bool closed_ = false;
  std::string received_;
};

std::size_t count_of(const std::string& text, const std::string& needle) {
  std::size_t count = 0;
  for (auto at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1))
    ++count;
  return count;
}

// 1.8: slowloris. A header dripped one byte at a time, each byte well inside
// any per-read time-out, is cut off when the whole header's time-out (from
// the accept) runs out; the deadline is not renewed by each byte.
TEST(Abuse, Interface_1_8_HeaderDrippedByteByByteIsTimedOut) {
  auto authd = abuse_server("1s");
  RawClient dripper(authd->port());
  std::string header = "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Drip: ";
  bool closed = false;
  // Bounded at 20 s of dripping (20x the time-out); the server cuts at 1 s.
  for (int i = 0; i < 400 && !closed; ++i) {
    if (!dripper.send(i < static_cast<int>(header.size()) ? header.substr(i, 1) : "a")) break;
    if (i == 5) expect_normal_client_served(*authd);  // while the drip goes on
    closed = dripper.poll_closed(milliseconds(50));
  }
  EXPECT_TRUE(closed || dripper.wait_closed());
  EXPECT_EQ(dripper.first_status(), 0) << dripper.received();  // a time-out, no answer
  expect_normal_client_served(*authd);
}

// 1.8: a body dripped forever (a declared length never reached) is cut off
// by the same deadline.
TEST(Abuse, Interface_1_8_BodyThatNeverFinishesIsTimedOut) {
  auto authd = abuse_server("1s");
  RawClient dripper(authd->port());
  ASSERT_TRUE(dripper.send(
      raw_request("POST", "/login",
                  {{"Content-Type", "application/json"}, {"Content-Length", "10000"}}) +
      "{\"email\":\"normal@example.com\",\"password\":\""));
  bool closed = false;
  for (int i = 0; i < 400 && !closed; ++i) {
    if (!dripper.send("x")) break;
    if (i == 5) expect_normal_client_served(*authd);
    closed = dripper.poll_closed(milliseconds(50));
  }
  EXPECT_TRUE(closed || dripper.wait_closed());
  EXPECT_EQ(dripper.first_status(), 0) << dripper.received();
  expect_normal_client_served(*authd);
}

// 1.8: thousands of connections that send nothing hold no thread: the normal
// client is served while they are all open, and every one of them is closed
// by the header time-out.
TEST(Abuse, Interface_1_8_ThousandsOfIdleConnectionsAreServedAroundAndTimedOut) {
  // The test process needs a descriptor per connection.
  rlimit limit{};
  ASSERT_EQ(::getrlimit(RLIMIT_NOFILE, &limit), 0);
  limit.rlim_cur = limit.rlim_max;
  ::setrlimit(RLIMIT_NOFILE, &limit);
  std::size_t connections = std::min<std::size_t>(2000, limit.rlim_cur - 200);
  ASSERT_GE(connections, 500u) << "descriptor limit too low for this test";

  auto authd = abuse_server("2s");
  std::vector<std::unique_ptr<RawClient>> idle;
  for (std::size_t i = 0; i < connections; ++i)
    idle.push_back(std::make_unique<RawClient>(authd->port()));
  expect_normal_client_served(*authd);

  std::size_t closed = 0;
  for (auto& client : idle) {
    if (client->wait_closed()) ++closed;
  }
  EXPECT_EQ(closed, connections);
  expect_normal_client_served(*authd);
}

// Waits (bounded: 30 s guards against a hang) for the first response.
int wait_for_status(RawClient& client) {
  for (int i = 0; i < 3000 && client.first_status() == 0; ++i) {
    if (client.poll_closed(milliseconds(10))) break;
  }
  return client.first_status();
}

// 1.5: an oversized chunked body sent slowly gets its 413 as soon as it has
// passed the limit, while the body is still unfinished (its last chunk is
// never sent); a declared oversized length gets it before a single body
// byte is sent.
TEST(Abuse, Interface_1_5_OversizedBodySentSlowlyIs413) {
  auto authd = abuse_server("10s");
  {
    RawClient slow(authd->port());
    ASSERT_TRUE(slow.send(
        raw_request("POST", "/login",
                    {{"Content-Type", "application/json"}, {"Transfer-Encoding", "chunked"}})));
    std::string chunk = "400\r\n" + std::string(1024, 'x') + "\r\n";  // 1 KiB chunks
    for (int sent = 0; sent < 15; ++sent) {                           // 15 KiB: within the limit
      ASSERT_TRUE(slow.send(chunk));
      if (sent == 4) expect_normal_client_served(*authd);
      slow.poll_closed(milliseconds(10));
    }
    EXPECT_EQ(slow.first_status(), 0) << "answered before the limit: " << slow.received();
    ASSERT_TRUE(slow.send(chunk + chunk));  // 17 KiB, and no last chunk
    EXPECT_EQ(wait_for_status(slow), 413) << slow.received();
  }
  {
    RawClient declared(authd->port());
    ASSERT_TRUE(declared.send(raw_request(
        "POST", "/login", {{"Content-Type", "application/json"}, {"Content-Length", "1000000"}})));
    EXPECT_EQ(wait_for_status(declared), 413) << declared.received();
    expect_normal_client_served(*authd);
    // The body trickling in after the answer is discarded, then the
    // connection is closed.
    for (int i = 0; i < 20 && declared.send(std::string(1024, 'x')); ++i) {
    }
    EXPECT_TRUE(declared.wait_closed());
  }
  expect_normal_client_served(*authd);
}

// 1.8: a flood of header fields is answered 431 once the header section
// passes 16 KiB, while the header is still unfinished, and the connection is
// closed even though the client goes on flooding: the server does not
// buffer whatever the client sends.
TEST(Abuse, Interface_1_8_FloodOfHeadersIs431) {
  auto authd = abuse_server("10s");
  for (const std::string& field :
       {std::string("X-Flood: ") + std::string(50, 'v') + "\r\n", std::string("a:\r\n")}) {
    SCOPED_TRACE(field);
    RawClient flood(authd->port());
    ASSERT_TRUE(flood.send("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n"));
    std::string burst;
    while (burst.size() < 1024) burst += field;
    for (int i = 0; i < 40; ++i) {  // 40 KiB of fields, never an empty line
      ASSERT_TRUE(flood.send(burst));
      if (i == 4) expect_normal_client_served(*authd);
    }
    EXPECT_EQ(wait_for_status(flood), 431) << flood.received().substr(0, 200);
    for (int i = 0; i < 2048 && flood.send(burst); ++i) {  // flooding on: up to 2 MiB
    }
    EXPECT_TRUE(flood.wait_closed());
  }
  expect_normal_client_served(*authd);
}

// 1.5 and 1.8, and
// docs/design/threat-model/denial-of-service.md#memory-per-connection: the
// parts of a chunked body that are not chunk data (an endless chunk-size line,
// an endless chunk extension, trailer fields without end) are bounded like the
// body itself. Six connections send them as fast as loopback carries them, up
// to 32 MiB each: each gets 413 and is closed, the server's peak resident
// memory grows by less than 16 MiB (without the bound it held all of it, 192
// MiB), and a normal client is served meanwhile.
TEST(Abuse, Interface_1_5_ChunkedFramingThatNeverEndsIs413AndHoldsNoMemory) {
  auto authd = abuse_server("10s");
  expect_normal_client_served(*authd);  // its hashing memory counts in the baseline
  const long baseline_kib = authd->peak_rss_kib();

  const std::string head = raw_request(
      "POST", "/login", {{"Content-Type", "application/json"}, {"Transfer-Encoding", "chunked"}});
  struct Framing {
    std::string name;
    std::string start;  // then `filler` again and again
    std::string filler;
  };
  const std::vector<Framing> framings = {
      {"chunk-size line", "1", std::string(65536, '0')},
      {"chunk extension", "1;ext=", std::string(65536, 'x')},
      {"trailer fields", "1\r\nx\r\n0\r\n",
       [] {
         std::string fields;
         while (fields.size() < 65536) fields += "X-Trailer: value\r\n";
         return fields;
       }()},
  };
  constexpr std::size_t kBudget = 32u << 20;  // bytes each abuser sends at most
  std::vector<std::unique_ptr<RawClient>> abusers;
  std::vector<std::thread> senders;
  for (int copy = 0; copy < 2; ++copy) {
    for (const Framing& framing : framings) {
      abusers.push_back(std::make_unique<RawClient>(authd->port()));
      RawClient* client = abusers.back().get();
      senders.emplace_back([client, &head, &framing] {
        if (!client->send(head + framing.start)) return;
        for (std::size_t sent = 0; sent < kBudget && client->send(framing.filler);
             sent += framing.filler.size()) {
        }
      });
    }
  }
  expect_normal_client_served(*authd);  // while they send
  for (auto& sender : senders) sender.join();
  for (std::size_t i = 0; i < abusers.size(); ++i) {
    SCOPED_TRACE(framings[i % framings.size()].name);
    EXPECT_EQ(wait_for_status(*abusers[i]), 413) << abusers[i]->received().substr(0, 200);
    EXPECT_TRUE(abusers[i]->wait_closed());
  }
  const long growth_kib = authd->peak_rss_kib() - baseline_kib;
  EXPECT_LT(growth_kib, 16 * 1024) << "peak RSS grew by " << growth_kib << " KiB";
  expect_normal_client_served(*authd);
}

// 1.1 and 1.8: hundreds of pipelined requests in one write, from a client
// that reads nothing until it has sent them all, are answered in order
// while the normal client is served.
TEST(Abuse, Interface_1_1_PipelinedFloodIsAnsweredInOrder) {
  auto authd = abuse_server("10s");
  constexpr int kRequests = 500;
  std::string pipeline;
  for (int i = 0; i < kRequests; ++i) {
    pipeline += raw_request("GET", "/healthz", {{"X-Request-Id", "pipe-" + std::to_string(i)}});
  }
  pipeline += raw_request("GET", "/nope", {{"Connection", "close"}});
  RawClient client(authd->port());
  ASSERT_TRUE(client.send(pipeline));
  expect_normal_client_served(*authd);
  ASSERT_TRUE(client.wait_closed());
  const std::string& received = client.received();
  EXPECT_EQ(count_of(received, "HTTP/1.1 200 OK\r\n"), static_cast<std::size_t>(kRequests));
  EXPECT_EQ(count_of(received, "HTTP/1.1 404 Not Found\r\n"), 1u);
  // In order: each request id appears after the one before it.
  std::size_t at = 0;
  for (int i = 0; i < kRequests; ++i) {
    auto next = received.find("X-Request-Id: pipe-" + std::to_string(i) + "\r\n", at);
    ASSERT_NE(next, std::string::npos) << "response " << i << " missing or out of order";
    at = next;
  }
}

// A smuggling attempt: bytes that a lenient parser (or a proxy in front)
// could read as a second request. authd refuses the whole message with 400,
// closes the connection, and never runs the hidden request: a login with the
// normal client's right password, which would have created a session.
struct Smuggle {
  const char* name;
  std::string bytes;
};

std::vector<Smuggle> smuggling_attempts() {
  std::string hidden = raw_request("POST", "/login", {{"Content-Type", "application/json"}},
                                   login_body(kNormalEmail, kNormalPassword));
  std::string n = std::to_string(hidden.size());
  std::string head =
      "POST /forgot HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n";
  return {
      // CL.TE and TE.CL: both framings at once.
      {"CL.TE", head + "Content-Length: " + std::to_string(5 + hidden.size()) +
                    "\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n" + hidden},
      {"TE.CL", head + "Transfer-Encoding: chunked\r\nContent-Length: 4\r\n\r\n" +
                    [&] {
                      std::string size;
                      for (std::size_t v = hidden.size(); v > 0; v /= 16)
                        size.insert(size.begin(), "0123456789abcdef"[v % 16]);
                      return size;
                    }() +
                    "\r\n" + hidden + "\r\n0\r\n\r\n"},
      // Two different Content-Lengths, and a list of them.
      {"two lengths", head + "Content-Length: 0\r\nContent-Length: " + n + "\r\n\r\n" + hidden},
      {"length list", head + "Content-Length: 0, " + n + "\r\n\r\n" + hidden},
      // obs-fold (RFC 9112 5.2): a folded line hiding a framing header, or
      // continuing one.
      {"obs-fold hides TE", head + "X-Folded: a\r\n Transfer-Encoding: chunked\r\n" +
                                "Content-Length: 5\r\n\r\n0\r\n\r\n" + hidden},
      {"obs-fold continues CL", head + "Content-Length: 0\r\n " + n + "\r\n\r\n" + hidden},
      {"obs-fold TE value", head + "Transfer-Encoding:\r\n chunked\r\n\r\n0\r\n\r\n" + hidden},
      // Framing headers spelled so that some parsers miss them.
      {"space before colon", head + "Content-Length : 0\r\n\r\n" + hidden},
      {"TE with trailing junk",
       head + "Transfer-Encoding: chunked, identity\r\n\r\n0\r\n\r\n" + hidden},
      {"TE in HTTP/1.0",
       "POST /forgot HTTP/1.0\r\nContent-Type: application/json\r\nTransfer-Encoding: "
       "chunked\r\n\r\n0\r\n\r\n" +
           hidden},
      {"signed length", head + "Content-Length: +0\r\n\r\n" + hidden},
      // Bare LF instead of CRLF.
      {"bare LF", "POST /forgot HTTP/1.1\nHost: 127.0.0.1\nContent-Length: 0\n\n" + hidden},
      // A chunk size that overflows 64 bits.
      {"chunk size overflow",
       head + "Transfer-Encoding: chunked\r\n\r\n10000000000000000000001\r\n" + hidden},
      // A NUL byte in a header value.
      {"NUL in header",
       head + "X-Nul: a" + std::string(1, '\0') + "b\r\nContent-Length: 0\r\n\r\n" + hidden},
  };
}

std::string session_count(const AuthdProcess& authd) {
  return without_trailing_newlines(authd.sql("select count(*) from sessions"));
}

// RFC 9112 6.1, 6.3 and 5.2, part of 1.8's "malformed": every smuggling
// attempt is 400 and closes the connection; the hidden login never runs
// (the one session that appears is the normal client's).
TEST(Abuse, Interface_1_8_SmugglingAttemptsAre400AndTheHiddenRequestNeverRuns) {
  auto authd = abuse_server("10s");
  for (const Smuggle& attempt : smuggling_attempts()) {
    SCOPED_TRACE(attempt.name);
    int before = std::stoi(session_count(*authd));
    RawClient client(authd->port());
    ASSERT_TRUE(client.send(attempt.bytes));
    expect_normal_client_served(*authd);
    EXPECT_TRUE(client.wait_closed());
    EXPECT_EQ(client.first_status(), 400) << client.received();
    EXPECT_EQ(count_of(client.received(), "HTTP/1."), 1u) << client.received();
    EXPECT_EQ(session_count(*authd), std::to_string(before + 1));
  }
}

// 1.8: a malformed request in the middle of a pipeline: the requests before
// it are answered, it gets 400, the connection closes, and nothing after it
// runs (here: a login that would create a session).
TEST(Abuse, Interface_1_8_MalformedRequestInAPipelineStopsIt) {
  auto authd = abuse_server("10s");
  std::string pipeline = raw_request("GET", "/healthz") + raw_request("GET", "/healthz") +
                         "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nBad Header\r\n\r\n" +
                         raw_request("POST", "/login", {{"Content-Type", "application/json"}},
                                     login_body(kNormalEmail, kNormalPassword));
  RawClient client(authd->port());
  ASSERT_TRUE(client.send(pipeline));
  expect_normal_client_served(*authd);
  ASSERT_TRUE(client.wait_closed());
  EXPECT_EQ(count_of(client.received(), "HTTP/1.1 200 OK\r\n"), 2u) << client.received();
  EXPECT_EQ(count_of(client.received(), "HTTP/1.1 400 Bad Request\r\n"), 1u) << client.received();
  EXPECT_EQ(session_count(*authd), "1");  // the normal client's only
}

// ------------------------------------------------ the obs-fold scan
//
// The server looks at the raw header for obs-fold before Beast parses it
// (http/request_checks.hpp, HeaderPrescan). The tests below hold it to three things:
// it must not hold back the answer to a bad request line, it must still
// refuse obs-fold however the bytes arrive, and a header that arrives in
// pieces must still be served.

// 1.8: a malformed request line is answered (400, or 505 for an HTTP
// version this server does not speak) and the connection closed as soon as
// the line is complete, although the rest of the header never comes. The
// header time-out is 60 s, longer than the 30 s that wait_closed() waits:
// a server that waited for the end of the header to answer fails here.
TEST(Abuse, Interface_1_8_MalformedRequestLineIsAnsweredWithoutWaitingForTheHeader) {
  auto authd = abuse_server("60s");
  struct Case {
    std::vector<std::string> pieces;  // sent one after another
    int status;
  };
  const std::vector<Case> cases = {
      {{"GET /healthz HTTP/2.0\r\n"}, 505},
      {{"GET /healthz HTT", "P/2.0\r\n"}, 505},
      {{"BAD LINE\r\n"}, 400},
      {{"BAD LI", "NE\r\n"}, 400},
      {{"GET /healthz HTTP/1.1\n"}, 400},                       // bare LF
      {{"GET /healthz HTTP/1.1", "\nHost: 127.0.0.1\n"}, 400},  // bare LF, later
      {{"GET /healthz HTTP/1.1", "\rHost: 127.0.0.1"}, 400},    // a CR alone
      {{"GE(T /healthz HTTP/1.1"}, 400},                        // no line end at all
      {{"GET /hea", "lthz HTTP/1.1 extra\r\n"}, 400},
  };
  for (const Case& c : cases) {
    std::string trace;
    for (const std::string& piece : c.pieces) trace += "[" + piece + "]";
    SCOPED_TRACE(trace);
    RawClient client(authd->port());
    ASSERT_TRUE(client.send(c.pieces.front()));
    // Served meanwhile; it also gives the server time to read the first
    // piece on its own.
    expect_normal_client_served(*authd);
    for (std::size_t i = 1; i < c.pieces.size(); ++i) ASSERT_TRUE(client.send(c.pieces[i]));
    EXPECT_TRUE(client.wait_closed());
    EXPECT_EQ(client.first_status(), c.status) << client.received();
    EXPECT_EQ(count_of(client.received(), "HTTP/1."), 1u) << client.received();
  }
}

// RFC 9112 5.2 (part of 1.8's "malformed"): obs-fold is 400 wherever the
// folded line is and however the header arrives: whole, or dripped one
// byte per write (so that the server sees the fold across many reads).
TEST(Abuse, Interface_1_8_ObsFoldIs400WholeOrDripped) {
  auto authd = abuse_server("10s");
  const std::vector<std::string> folded = {
      "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-A: a\r\n b\r\n\r\n",
      "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-A: a\r\n\tb\r\n\r\n",
      "GET /healthz HTTP/1.1\r\n Host: 127.0.0.1\r\n\r\n",  // right after the request line
      "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-A: a\n b\n\n",
  };
  for (const std::string& bytes : folded) {
    for (bool drip : {false, true}) {
      SCOPED_TRACE(testing::Message() << (drip ? "dripped: " : "whole: ") << bytes);
      RawClient client(authd->port());
      if (drip) {
        for (char byte : bytes) ASSERT_TRUE(client.send(std::string(1, byte)));
      } else {
        ASSERT_TRUE(client.send(bytes));
      }
      expect_normal_client_served(*authd);
      EXPECT_TRUE(client.wait_closed());
      EXPECT_EQ(client.first_status(), 400) << client.received();
      EXPECT_EQ(count_of(client.received(), "HTTP/1."), 1u) << client.received();
    }
  }
}

// 1.8: a well-formed request whose header arrives one byte per write (but
// within the header time-out) is served like any other, keep-alive
// included: the second request on the connection is dripped too.
TEST(Abuse, Interface_1_8_HeaderDrippedInSmallWritesIsServed) {
  auto authd = abuse_server("10s");
  std::string login = raw_request("POST", "/login", {{"Content-Type", "application/json"}},
                                  login_body(kNormalEmail, kNormalPassword));
  std::string healthz =
      "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Long: " + std::string(5000, 'v') +
      "\r\nX-Empty:\r\n\r\n";
  RawClient client(authd->port());
  for (const std::string& request : {login, healthz}) {
    for (char byte : request) ASSERT_TRUE(client.send(std::string(1, byte)));
  }
  expect_normal_client_served(*authd);
  ASSERT_TRUE(eventually([&] {
    client.poll_closed(milliseconds(10));
    return count_of(client.received(), "HTTP/1.1 200 OK\r\n") >= 2;
  })) << client.received();
  EXPECT_EQ(count_of(client.received(), "HTTP/1."), 2u) << client.received();
  EXPECT_NE(client.received().find("Authorization: Bearer "), std::string::npos)
      << client.received();
}

}  // namespace
}  // namespace authd::test
