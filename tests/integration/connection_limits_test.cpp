// Connection caps
// (docs/design/threat-model/denial-of-service.md#connection-limits;
// --max-connections and --max-connections-per-client): past a cap a new
// connection is closed at once, unanswered, and counted in /metrics, unless an
// idle connection can be closed to make room: idle ones go first. Clients come
// from different loopback addresses (127.0.0.0/8 is all local on Linux), so
// that the per-client cap can be told from the total.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include "contract_support.hpp"
#include "harness.hpp"

namespace authd::test {
namespace {

// A connection from a chosen loopback address, read with bounded waits.
class Client {
 public:
  Client(const char* source, unsigned short port) {
    fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in from{};
    from.sin_family = AF_INET;
    ::inet_pton(AF_INET, source, &from.sin_addr);
    sockaddr_in to{};
    to.sin_family = AF_INET;
    to.sin_port = htons(port);
    to.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (fd_ < 0 || ::bind(fd_, reinterpret_cast<sockaddr*>(&from), sizeof from) != 0 ||
        ::connect(fd_, reinterpret_cast<sockaddr*>(&to), sizeof to) != 0)
      throw std::runtime_error(std::string("cannot connect from ") + source);
  }
  ~Client() { ::close(fd_); }
  Client(const Client&) = delete;
  Client& operator=(const Client&) = delete;

  void send(const std::string& bytes) {
    ASSERT_EQ(::send(fd_, bytes.data(), bytes.size(), MSG_NOSIGNAL),
              static_cast<ssize_t>(bytes.size()));
  }

  // Reads until `needle` has arrived (true) or the server closed (false);
  // bounded at 30 s against a hang.
  bool read_until(const std::string& needle) {
    while (received_.find(needle) == std::string::npos) {
      if (!read_some()) return false;
    }
    return true;
  }

  // True once the server has closed the connection (end of stream or
  // reset), waiting at most 30 s.
  bool closed_by_server() {
    while (read_some()) {
    }
    return closed_;
  }

  // Whether the server closed the connection by now, waiting `wait` at most.
  bool closed_within(std::chrono::milliseconds wait) {
    pollfd p{fd_, POLLIN, 0};
    if (::poll(&p, 1, static_cast<int>(wait.count())) <= 0) return false;
    return !read_some();
  }

  // One GET /healthz on this connection, kept alive; its status (0: closed).
  int healthz() {
    received_.clear();
    send("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
    if (!read_until("\r\n\r\n") || !read_until("}")) return 0;
    return std::stoi(received_.substr(9, 3));
  }

  // A request whose body never comes: the server answers 100 Continue once
  // it has read the header, and the connection is busy from then on.
  void start_request_that_never_ends() {
    send(
        "POST /login HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
        "Content-Length: 100\r\nExpect: 100-continue\r\n\r\n");
    ASSERT_TRUE(read_until("100 Continue\r\n\r\n")) << received_;
  }

 private:
  bool read_some() {
    if (closed_) return false;
    pollfd p{fd_, POLLIN, 0};
    if (::poll(&p, 1, 30000) <= 0) return false;
    char chunk[4096];
    ssize_t n = ::recv(fd_, chunk, sizeof chunk, 0);
    if (n <= 0) {
      closed_ = true;
      return false;
    }
    received_.append(chunk, static_cast<std::size_t>(n));
    return true;
  }

  int fd_ = -1;
  bool closed_ = false;
  std::string received_;
};

std::unique_ptr<AuthdProcess> server_with(const std::string& total, const std::string& per_client) {
  std::vector<std::string> args = fast_hashing();
  args.insert(args.end(), {"--max-connections", total, "--max-connections-per-client", per_client,
                           "--header-timeout", "60s", "--io-threads", "1"});
  return std::make_unique<AuthdProcess>(args);
}

// Per client: with every connection of 127.0.0.2 busy, its next one is
// closed at once and unanswered; another client is served meanwhile.
TEST(ConnectionLimits, PerClientCapClosesNewConnectionsWhenNoneIsIdle) {
  auto authd = server_with("100", "4");
  std::vector<std::unique_ptr<Client>> busy;
  for (int i = 0; i < 4; ++i) {
    busy.push_back(std::make_unique<Client>("127.0.0.2", authd->port()));
    busy.back()->start_request_that_never_ends();
  }
  Client refused("127.0.0.2", authd->port());
  EXPECT_TRUE(refused.closed_by_server());
  Client other("127.0.0.3", authd->port());
  EXPECT_EQ(other.healthz(), 200);
  EXPECT_EQ(metric(*authd, "authd_connections_refused_per_client_total"), 1);
  EXPECT_EQ(metric(*authd, "authd_connections_refused_max_total"), 0);
  for (auto& client : busy) EXPECT_FALSE(client->closed_within(std::chrono::milliseconds(0)));
}

// Per client, idle first: with the cap reached by keep-alive connections
// that wait for their next request, a new connection is served and one of
// the idle ones is closed to make room.
TEST(ConnectionLimits, PerClientCapClosesAnIdleConnectionToMakeRoom) {
  auto authd = server_with("100", "4");
  std::vector<std::unique_ptr<Client>> idle;
  for (int i = 0; i < 4; ++i) {
    idle.push_back(std::make_unique<Client>("127.0.0.2", authd->port()));
    ASSERT_EQ(idle.back()->healthz(), 200);
  }
  Client fifth("127.0.0.2", authd->port());
  EXPECT_EQ(fifth.healthz(), 200);
  int closed = 0;
  for (auto& client : idle) closed += client->closed_within(std::chrono::milliseconds(500));
  EXPECT_EQ(closed, 1);
  EXPECT_EQ(metric(*authd, "authd_connections_idle_closed_total"), 1);
  EXPECT_EQ(metric(*authd, "authd_connections_refused_per_client_total"), 0);
}

// In all: with --max-connections busy connections open, from several
// clients, a new one from yet another client is closed at once; once one
// of them ends, new connections are served again.
TEST(ConnectionLimits, TotalCapClosesNewConnectionsWhenNoneIsIdle) {
  auto authd = server_with("6", "100");
  const char* sources[] = {"127.0.0.2", "127.0.0.3", "127.0.0.4"};
  std::vector<std::unique_ptr<Client>> busy;
  for (int i = 0; i < 6; ++i) {
    busy.push_back(std::make_unique<Client>(sources[i % 3], authd->port()));
    busy.back()->start_request_that_never_ends();
  }
  {
    Client refused("127.0.0.5", authd->port());
    EXPECT_TRUE(refused.closed_by_server());
  }
  EXPECT_EQ(metric(*authd, "authd_connections_refused_max_total"), 1);
  busy.pop_back();  // one busy client goes away: its place is free again
  EXPECT_TRUE(eventually([&] {
    Client next("127.0.0.5", authd->port());
    return next.healthz() == 200;
  }));
}

// In all, idle first: near the total cap (90 %) each new connection closes
// an idle one, so busy connections are never the ones to go and new
// clients keep being served while anything is idle.
TEST(ConnectionLimits, NearTheTotalCapIdleConnectionsAreClosedFirst) {
  auto authd = server_with("10", "100");
  std::vector<std::unique_ptr<Client>> busy;
  for (int i = 0; i < 5; ++i) {
    busy.push_back(std::make_unique<Client>("127.0.0.2", authd->port()));
    busy.back()->start_request_that_never_ends();
  }
  std::vector<std::unique_ptr<Client>> idle;
  for (int i = 0; i < 4; ++i) {
    idle.push_back(std::make_unique<Client>("127.0.0.3", authd->port()));
    ASSERT_EQ(idle.back()->healthz(), 200);
  }
  // 9 open: at 90 % of 10. Each newcomer is served and closes an idle one
  // (an earlier newcomer, once served, is idle too).
  for (int i = 0; i < 3; ++i) {
    idle.push_back(std::make_unique<Client>("127.0.0.4", authd->port()));
    EXPECT_EQ(idle.back()->healthz(), 200) << i;
  }
  int closed = 0;
  for (auto& client : idle) closed += client->closed_within(std::chrono::milliseconds(500));
  EXPECT_EQ(closed, 3);
  for (auto& client : busy) EXPECT_FALSE(client->closed_within(std::chrono::milliseconds(0)));
  EXPECT_EQ(metric(*authd, "authd_connections_idle_closed_total"), 3);
}

}  // namespace
}  // namespace authd::test
