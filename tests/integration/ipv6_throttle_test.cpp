// interface.md 6 /login 4 and /forgot 5 for IPv6 clients: a client is its
// /64, and the /56 and /48 around it are counters too (--ipv6-56-limit-factor,
// --ipv6-48-limit-factor), so that a holder of a /48 does not get 65,536
// per-client limits. IPv6 clients come in through X-Forwarded-For from the
// trusted loopback peer (interface.md 13.1): no IPv6 network is needed.
#include <gtest/gtest.h>

#include "contract_support.hpp"
#include "harness.hpp"

namespace authd::test {
namespace {

// Per client (/64) 2 per window; a /56 4 (factor 2), a /48 6 (factor 3).
std::vector<std::string> small_ipv6_limits() {
  std::vector<std::string> args = fast_hashing();
  args.insert(args.end(), {"--trusted-proxies", "127.0.0.1/32", "--login-client-limit", "2/15m",
                           "--forgot-client-limit", "2/15m", "--ipv6-56-limit-factor", "2",
                           "--ipv6-48-limit-factor", "3"});
  return args;
}

int login_as(const AuthdProcess& authd, const std::string& client, const std::string& body) {
  return post_json(authd.port(), "/login", body, {{"X-Forwarded-For", client}}).status;
}

int failed_login_as(const AuthdProcess& authd, const std::string& client) {
  static int n = 0;
  return login_as(authd, client,
                  login_body("guess" + std::to_string(++n) + "@example.com", "wrong password"));
}

int forgot_as(const AuthdProcess& authd, const std::string& client) {
  return post_json(authd.port(), "/forgot", forgot_body("nobody@example.com"),
                   {{"X-Forwarded-For", client}})
      .status;
}

std::string events_under(const AuthdProcess& authd, const std::string& key) {
  return lines(authd.sql("select count(*) from throttle_events where key = '" + key + "'")).at(0);
}

// 6 /login 4: failures from other /64s of one /56, and of one /48, add up
// to the aggregate limits; another /48 and IPv4 clients are not affected.
TEST(Ipv6Throttle, Interface_6_Login_4_Slash56AndSlash48AreLimitedAcrossTheirSlash64s) {
  AuthdProcess authd(small_ipv6_limits());
  authd.add_user(kEmail, kPassword);

  // One /64: the per-client limit.
  EXPECT_EQ(failed_login_as(authd, "2001:db8:1:100::1"), 401);
  EXPECT_EQ(failed_login_as(authd, "2001:db8:1:100::2"), 401);
  EXPECT_EQ(failed_login_as(authd, "2001:db8:1:100::3"), 429);
  // A second /64 of the same /56: its own 2, then the /56 holds 4.
  EXPECT_EQ(failed_login_as(authd, "2001:db8:1:101::1"), 401);
  EXPECT_EQ(failed_login_as(authd, "2001:db8:1:101::1"), 401);
  // A third, fresh /64 of that /56 is refused, even with the right password.
  EXPECT_EQ(failed_login_as(authd, "2001:db8:1:1ff::1"), 429);
  EXPECT_EQ(login_as(authd, "2001:db8:1:1ff::1", login_body(kEmail, kPassword)), 429);
  // Another /56 of the same /48: 2 more make the /48's 6.
  EXPECT_EQ(failed_login_as(authd, "2001:db8:1:200::1"), 401);
  EXPECT_EQ(failed_login_as(authd, "2001:db8:1:200::1"), 401);
  EXPECT_EQ(failed_login_as(authd, "2001:db8:1:300::1"), 429);
  // Another /48 and an IPv4 client are on their own.
  EXPECT_EQ(failed_login_as(authd, "2001:db8:2::1"), 401);
  EXPECT_EQ(failed_login_as(authd, "198.51.100.1"), 401);
  EXPECT_EQ(login_as(authd, "2001:db8:2::1", login_body(kEmail, kPassword)), 200);

  // Only counted attempts (401s) are events: 429s and 400s add none
  // (interface.md 1.10), and a success takes its own back.
  EXPECT_EQ(login_as(authd, "2001:db8:2::1", R"({"email":"x@example.com"})"), 400);
  EXPECT_EQ(events_under(authd, "login:client:2001:db8:1:100::/64"), "2");
  EXPECT_EQ(events_under(authd, "login:client:2001:db8:1:100::/56"), "4");
  EXPECT_EQ(events_under(authd, "login:client:2001:db8:1::/48"), "6");
  EXPECT_EQ(events_under(authd, "login:client:2001:db8:1:1ff::/64"), "0");
  EXPECT_EQ(events_under(authd, "login:client:2001:db8:2::/48"), "1");
  // An IPv4 client has one counter and no network ones.
  EXPECT_EQ(lines(authd.sql("select key from throttle_events where key like "
                            "'login:client:198.51.100.%'")),
            std::vector<std::string>{"login:client:198.51.100.1"});
}

// 6 /forgot 5: the same for valid /forgot requests.
TEST(Ipv6Throttle, Interface_6_Forgot_5_Slash56AndSlash48AreLimitedAcrossTheirSlash64s) {
  AuthdProcess authd(small_ipv6_limits());
  EXPECT_EQ(forgot_as(authd, "2001:db8:1:100::1"), 200);
  EXPECT_EQ(forgot_as(authd, "2001:db8:1:100::1"), 200);
  EXPECT_EQ(forgot_as(authd, "2001:db8:1:100::1"), 429);
  EXPECT_EQ(forgot_as(authd, "2001:db8:1:101::1"), 200);
  EXPECT_EQ(forgot_as(authd, "2001:db8:1:101::1"), 200);
  EXPECT_EQ(forgot_as(authd, "2001:db8:1:1ff::1"), 429);  // the /56 is full
  EXPECT_EQ(forgot_as(authd, "2001:db8:1:200::1"), 200);
  EXPECT_EQ(forgot_as(authd, "2001:db8:1:200::1"), 200);
  EXPECT_EQ(forgot_as(authd, "2001:db8:1:300::1"), 429);  // the /48 is full
  EXPECT_EQ(forgot_as(authd, "2001:db8:2::1"), 200);
  EXPECT_EQ(events_under(authd, "forgot:client:2001:db8:1::/48"), "6");
}

}  // namespace
}  // namespace authd::test
