// http/connection_registry.hpp: the connection caps' arithmetic, without
// sockets (the integration tests in connection_limits_test.cpp run them
// against the real server).
#include "http/connection_registry.hpp"

#include <gtest/gtest.h>

namespace authd {
namespace {

// A connection that records being asked to close.
class FakeConnection : public ConnectionRegistry::Tracked {
 public:
  explicit FakeConnection(std::string client, bool idle = false) : Tracked(std::move(client)) {
    set_idle(idle);
  }
  void close_if_idle() override { ++close_requests; }
  int close_requests = 0;
};

using Admission = ConnectionRegistry::Admission;

std::shared_ptr<FakeConnection> connection(const std::string& client, bool idle = false) {
  return std::make_shared<FakeConnection>(client, idle);
}

TEST(ConnectionRegistry, PerClientCapRefusesWhenNoneOfTheClientsConnectionsIsIdle) {
  ConnectionRegistry registry({.total = 100, .per_client = 2});
  auto a = connection("192.0.2.1");
  auto b = connection("192.0.2.1");
  EXPECT_EQ(registry.admit(a, false), Admission::admitted);
  EXPECT_EQ(registry.admit(b, false), Admission::admitted);
  EXPECT_EQ(registry.admit(connection("192.0.2.1"), false), Admission::refused_per_client);
  EXPECT_EQ(registry.admit(connection("192.0.2.2"), false), Admission::admitted);
  EXPECT_EQ(registry.open(), 3u);
  EXPECT_EQ(registry.refused_per_client(), 1u);
  registry.forget(a);
  EXPECT_EQ(registry.admit(connection("192.0.2.1"), false), Admission::admitted);
}

TEST(ConnectionRegistry, PerClientCapClosesOneOfTheClientsIdleConnections) {
  ConnectionRegistry registry({.total = 100, .per_client = 2});
  auto other_client_idle = connection("192.0.2.9", true);
  auto busy = connection("192.0.2.1");
  auto idle = connection("192.0.2.1", true);
  registry.admit(other_client_idle, false);
  registry.admit(busy, false);
  registry.admit(idle, false);
  EXPECT_EQ(registry.admit(connection("192.0.2.1"), false), Admission::admitted);
  EXPECT_EQ(idle->close_requests, 1);
  EXPECT_EQ(busy->close_requests, 0);
  EXPECT_EQ(other_client_idle->close_requests, 0);
  EXPECT_FALSE(idle->idle()) << "picked once: the next admission must find another";
  EXPECT_EQ(registry.admit(connection("192.0.2.1"), false), Admission::refused_per_client);
  EXPECT_EQ(registry.idle_closed(), 1u);
}

TEST(ConnectionRegistry, AnExemptClientIsBoundOnlyByTheTotal) {
  ConnectionRegistry registry({.total = 5, .per_client = 1});
  for (int i = 0; i < 5; ++i)
    EXPECT_EQ(registry.admit(connection("127.0.0.1"), true), Admission::admitted) << i;
  EXPECT_EQ(registry.admit(connection("127.0.0.1"), true), Admission::refused_total);
}

TEST(ConnectionRegistry, NearTheTotalCapEachAdmissionClosesAnIdleConnection) {
  ConnectionRegistry registry({.total = 10, .per_client = 100});
  std::vector<std::shared_ptr<FakeConnection>> idle;
  for (int i = 0; i < 8; ++i) registry.admit(connection("192.0.2." + std::to_string(i)), false);
  idle.push_back(connection("198.51.100.1", true));
  registry.admit(idle.back(), false);  // 9 open, at 90 % of 10: nothing closed yet
  EXPECT_EQ(idle.back()->close_requests, 0);
  EXPECT_EQ(registry.admit(connection("203.0.113.1"), false), Admission::admitted);
  EXPECT_EQ(idle.back()->close_requests, 1) << "at 90 %, a newcomer closes an idle one";
  // 10 open, none idle: the total refuses.
  EXPECT_EQ(registry.admit(connection("203.0.113.2"), false), Admission::refused_total);
  EXPECT_EQ(registry.refused_total(), 1u);
}

TEST(ConnectionRegistry, ForgetTellsWhenTheLastConnectionIsGone) {
  ConnectionRegistry registry({});
  auto a = connection("192.0.2.1");
  auto b = connection("192.0.2.2");
  registry.admit(a, false);
  registry.admit(b, false);
  EXPECT_FALSE(registry.forget(a));
  EXPECT_FALSE(registry.forget(a)) << "twice is once";
  EXPECT_TRUE(registry.forget(b));
  EXPECT_EQ(registry.open(), 0u);
  int visited = 0;
  registry.for_each([&](const auto&) { ++visited; });
  EXPECT_EQ(visited, 0);
}

}  // namespace
}  // namespace authd
