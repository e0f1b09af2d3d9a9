// auth/login/throttle: the sliding-window arithmetic behind interface.md 6 /login 4
// (10 failures per e-mail per 15 minutes, 429 with Retry-After until the
// window allows again) and 6 /forgot 5 (per-client limit, per-e-mail mail
// limits).
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "auth/login/throttle.hpp"

namespace authd {
namespace {

using namespace std::chrono_literals;
using std::chrono::seconds;

constexpr Millis kNow = 1'800'000'000'000;  // a fixed "now"
constexpr Millis kMinute = 60'000;

RateLimit limit(int count, Duration window) { return RateLimit{count, window}; }

// `n` events, one every `step` ms, the last one `age_of_last` ms before now.
std::vector<Millis> events(int n, Millis step, Millis age_of_last) {
  std::vector<Millis> times;
  for (int i = n - 1; i >= 0; --i) times.push_back(kNow - age_of_last - i * step);
  return times;
}

// interface.md 6 /login 4: under the limit, attempts are allowed.
TEST(Throttle, UnderTheLimitIsAllowed) {
  auto ten_per_15m = limit(10, 15min);
  EXPECT_TRUE(evaluate_window({}, kNow, ten_per_15m).allowed);
  for (int n = 1; n < 10; ++n) {
    auto verdict = evaluate_window(events(n, kMinute, 0), kNow, ten_per_15m);
    EXPECT_TRUE(verdict.allowed) << n;
    EXPECT_EQ(verdict.retry_after, 0s) << n;
  }
}

// interface.md 6 /login 4: at the limit, blocked until the oldest relevant
// event leaves the window; Retry-After is that wait in whole seconds.
TEST(Throttle, AtTheLimitIsBlockedUntilTheOldestEventLeaves) {
  auto ten_per_15m = limit(10, 15min);
  // Ten failures, one a minute, the last one just now: the oldest is 9
  // minutes old and leaves the 15-minute window in exactly 6 minutes.
  auto verdict = evaluate_window(events(10, kMinute, 0), kNow, ten_per_15m);
  EXPECT_FALSE(verdict.allowed);
  EXPECT_EQ(verdict.retry_after, 360s);
}

// interface.md 6 /login 4: with more events than the limit, the window
// allows again once enough have left that fewer than `count` remain.
TEST(Throttle, OverTheLimitWaitsForTheRightEvent) {
  auto three_per_10m = limit(3, 10min);
  // Five events at now-9m, -8m, -7m, -6m, -5m: three must leave, the third
  // oldest (now-7m) leaves in 3 minutes.
  auto verdict = evaluate_window(events(5, kMinute, 5 * kMinute), kNow, three_per_10m);
  EXPECT_FALSE(verdict.allowed);
  EXPECT_EQ(verdict.retry_after, 180s);
}

// Retry-After rounds a partial second up, never down.
TEST(Throttle, RetryAfterRoundsUp) {
  auto one_per_minute = limit(1, 1min);
  // The event is 10.5 s old: it leaves in 49.5 s, so Retry-After is 50.
  auto verdict = evaluate_window({kNow - 10'500}, kNow, one_per_minute);
  EXPECT_FALSE(verdict.allowed);
  EXPECT_EQ(verdict.retry_after, 50s);
  // 10.001 s old: leaves in 49.999 s -> 50.
  EXPECT_EQ(evaluate_window({kNow - 10'001}, kNow, one_per_minute).retry_after, 50s);
  // Exactly 10 s old: leaves in 50 s -> 50.
  EXPECT_EQ(evaluate_window({kNow - 10'000}, kNow, one_per_minute).retry_after, 50s);
}

// Retry-After is at least 1, even when the event leaves within a millisecond.
TEST(Throttle, RetryAfterIsAtLeastOneSecond) {
  auto one_per_minute = limit(1, 1min);
  auto verdict = evaluate_window({kNow - 59'999}, kNow, one_per_minute);
  EXPECT_FALSE(verdict.allowed);
  EXPECT_EQ(verdict.retry_after, 1s);
}

// interface.md 6 /login 4 ("within any 15-minute window"): events older than
// the window do not count; an event exactly one window old has left it.
TEST(Throttle, EventsOlderThanTheWindowAreIgnored) {
  auto three_per_10m = limit(3, 10min);
  std::vector<Millis> times = {kNow - 60 * kMinute, kNow - 11 * kMinute, kNow - 10 * kMinute,
                               kNow - 2 * kMinute, kNow - kMinute};
  EXPECT_TRUE(evaluate_window(times, kNow, three_per_10m).allowed);

  times.push_back(kNow);
  auto verdict = evaluate_window(times, kNow, three_per_10m);
  EXPECT_FALSE(verdict.allowed);
  EXPECT_EQ(verdict.retry_after, 480s);  // now-2m leaves in 8 minutes

  // One millisecond inside the window does count.
  std::vector<Millis> edge = {kNow - 10 * kMinute + 1, kNow - kMinute, kNow};
  EXPECT_FALSE(evaluate_window(edge, kNow, three_per_10m).allowed);
  EXPECT_EQ(evaluate_window(edge, kNow, three_per_10m).retry_after, 1s);
}

// interface.md 6 /forgot 5: "at most one mail a minute and five an hour".
TEST(Throttle, ResetMailLimitsPerEmail) {
  auto one_per_minute = limit(1, 1min);
  auto five_per_hour = limit(5, 1h);
  std::vector<Millis> sent = {kNow - 50 * kMinute, kNow - 40 * kMinute, kNow - 30 * kMinute,
                              kNow - 20 * kMinute, kNow - 10 * kMinute};
  EXPECT_TRUE(evaluate_window(sent, kNow, one_per_minute).allowed);
  auto hourly = evaluate_window(sent, kNow, five_per_hour);
  EXPECT_FALSE(hourly.allowed);
  EXPECT_EQ(hourly.retry_after, 600s);  // now-50m leaves in 10 minutes
}

// interface.md 6 /login 4: both limits (e-mail and client) must allow; the
// wait is the longer one.
TEST(Throttle, CombineTakesTheLongerWait) {
  ThrottleVerdict ok;
  ThrottleVerdict short_wait{false, 30s};
  ThrottleVerdict long_wait{false, 300s};
  auto both = combine(short_wait, long_wait);
  EXPECT_FALSE(both.allowed);
  EXPECT_EQ(both.retry_after, 300s);
  EXPECT_EQ(combine(long_wait, short_wait).retry_after, 300s);

  auto one = combine(ok, short_wait);
  EXPECT_FALSE(one.allowed);
  EXPECT_EQ(one.retry_after, 30s);
  EXPECT_EQ(combine(short_wait, ok).retry_after, 30s);

  auto none = combine(ok, ok);
  EXPECT_TRUE(none.allowed);
  EXPECT_EQ(none.retry_after, 0s);
}

// What check_throttle reads: the newest `most` events after `after`, as
// Transaction::event_times returns them (ascending).
std::vector<Millis> newest(const std::vector<Millis>& times, Millis after, int most) {
  std::vector<Millis> in_window;
  for (Millis t : times)
    if (t > after) in_window.push_back(t);
  if (in_window.size() > static_cast<std::size_t>(most))
    in_window.erase(in_window.begin(), in_window.end() - most);
  return in_window;
}

// The store reads only the newest `count` events of a key (a throttle
// check must not read every attempt an attacker made). The verdict
// and Retry-After from those alone must equal those from every event in
// the window, in every case of this table.
TEST(Throttle, Interface_6_Login_4_NewestCountEventsGiveTheSameVerdictAsAllOfThem) {
  struct Case {
    const char* what;
    std::vector<Millis> times;  // ascending
    RateLimit limit;
    bool allowed;
    seconds retry_after;
  };
  const std::vector<Case> cases = {
      {"none", {}, limit(10, 15min), true, 0s},
      {"one under", events(9, kMinute, 0), limit(10, 15min), true, 0s},
      {"exactly at", events(10, kMinute, 0), limit(10, 15min), false, 360s},
      {"far over", events(5000, 100, 0), limit(10, 15min), false, 900s},
      {"over, oldest decide", events(30, kMinute / 2, 0), limit(10, 15min), false, 630s},
      {"old ones outside", events(40, kMinute, 0), limit(10, 15min), false, 360s},
      {"all outside", events(40, kMinute, 16 * kMinute), limit(10, 15min), true, 0s},
      {"edge: one window old", {kNow - 15 * kMinute, kNow - kMinute}, limit(2, 15min), true, 0s},
      {"edge: 1 ms inside", {kNow - 15 * kMinute + 1, kNow - kMinute}, limit(2, 15min), false, 1s},
      {"count 1", events(3, kMinute, 10'500), limit(1, 1min), false, 50s},
      {"equal times", std::vector<Millis>(20, kNow - 1000), limit(5, 1min), false, 59s},
      {"max count", events(10'000, 10, 0), limit(10'000, 1h), false, 3'501s},
  };
  for (const Case& c : cases) {
    auto everything = evaluate_window(c.times, kNow, c.limit);
    auto bounded = evaluate_window(newest(c.times, kNow - c.limit.window.count(), c.limit.count),
                                   kNow, c.limit);
    EXPECT_EQ(everything.allowed, c.allowed) << c.what;
    EXPECT_EQ(everything.retry_after, c.retry_after) << c.what;
    EXPECT_EQ(bounded.allowed, c.allowed) << c.what;
    EXPECT_EQ(bounded.retry_after, c.retry_after) << c.what;
  }
}

// The same equivalence over many generated event lists (a fixed seed, so
// the run is deterministic): bursts, gaps, duplicates, events on the edges.
TEST(Throttle, NewestCountEventsAgreeWithAllOfThemOnGeneratedLists) {
  std::uint64_t state = 0x9E3779B97F4A7C15u;
  auto next = [&state](std::uint64_t bound) {
    state = state * 6364136223846793005u + 1442695040888963407u;
    return (state >> 33) % bound;
  };
  for (int round = 0; round < 2000; ++round) {
    RateLimit rule = limit(static_cast<int>(1 + next(12)), Duration(1 + next(20 * kMinute)));
    std::vector<Millis> times;
    auto n = next(40);
    for (std::uint64_t i = 0; i < n; ++i)
      times.push_back(kNow - static_cast<Millis>(
                                 next(static_cast<std::uint64_t>(rule.window.count() * 2 + 1))));
    std::sort(times.begin(), times.end());
    auto everything = evaluate_window(times, kNow, rule);
    auto bounded =
        evaluate_window(newest(times, kNow - rule.window.count(), rule.count), kNow, rule);
    ASSERT_EQ(everything.allowed, bounded.allowed) << round;
    ASSERT_EQ(everything.retry_after, bounded.retry_after) << round;
  }
}

// Counters live in separate namespaces, so one limit never counts another's events.
TEST(Throttle, KeysAreDistinctPerCounter) {
  std::set<std::string> keys = {login_email_key("a@b.c"), login_client_key("a@b.c"),
                                forgot_client_key("a@b.c"), reset_mail_key("a@b.c")};
  EXPECT_EQ(keys.size(), 4u);
}

}  // namespace
}  // namespace authd

namespace authd {
namespace {

// Per-client limits (6 /login 4, /forgot 5) count an IPv6 client by its /64.
TEST(ClientNetwork, Ipv4AddressIsKeptWhole) {
  EXPECT_EQ(client_network("203.0.113.7"), "203.0.113.7");
  EXPECT_NE(login_client_key("203.0.113.7"), login_client_key("203.0.113.8"));
}

TEST(ClientNetwork, Ipv6AddressesOfOneSlash64ShareAKey) {
  EXPECT_EQ(client_network("2001:db8:1:2:aaaa:bbbb:cccc:dddd"), "2001:db8:1:2::/64");
  EXPECT_EQ(login_client_key("2001:db8:1:2::1"), login_client_key("2001:db8:1:2:ffff::9"));
  EXPECT_NE(forgot_client_key("2001:db8:1:2::1"), forgot_client_key("2001:db8:1:3::1"));
}

TEST(ClientNetwork, Ipv4MappedIpv6IsKeptWhole) {
  EXPECT_EQ(client_network("::ffff:203.0.113.7"), "::ffff:203.0.113.7");
}

}  // namespace
}  // namespace authd

namespace authd {
namespace {

const RateLimit kPerClient{100, std::chrono::minutes(15)};
const Ipv6Aggregates kDefaults{};  // 4 and 16

std::vector<std::string> keys_of(const std::vector<ThrottleCounter>& counters) {
  std::vector<std::string> keys;
  for (const auto& counter : counters) keys.push_back(counter.key);
  return keys;
}

// 6 /login 4 and /forgot 5: an IPv4 client has its one counter, nothing
// more (each counter is a read and a write per counted request).
TEST(ClientCounters, Interface_6_Login_4_And_Forgot_5_Ipv4ClientHasOneCounter) {
  auto counters = client_counters(ClientCounterKind::login, "203.0.113.7", kPerClient, kDefaults);
  ASSERT_EQ(keys_of(counters), std::vector<std::string>{login_client_key("203.0.113.7")});
  EXPECT_EQ(counters[0].limit.count, 100);
  EXPECT_EQ(keys_of(client_counters(ClientCounterKind::forgot, "::ffff:203.0.113.7", kPerClient,
                                    kDefaults)),
            std::vector<std::string>{forgot_client_key("::ffff:203.0.113.7")});
}

// 6 /login 4 and /forgot 5: an IPv6 client counts in its /64 at the
// per-client limit, and in its /56 and /48 at multiples of it, same window.
TEST(ClientCounters, Interface_6_Login_4_And_Forgot_5_Ipv6ClientCountsInItsSlash56AndSlash48) {
  auto counters = client_counters(ClientCounterKind::login, "2001:db8:1:2ff:aaaa:bbbb:cccc:dddd",
                                  kPerClient, kDefaults);
  EXPECT_EQ(keys_of(counters), (std::vector<std::string>{"login:client:2001:db8:1:2ff::/64",
                                                         "login:client:2001:db8:1:200::/56",
                                                         "login:client:2001:db8:1::/48"}));
  ASSERT_EQ(counters.size(), 3u);
  EXPECT_EQ(counters[0].limit.count, 100);
  EXPECT_EQ(counters[1].limit.count, 400);
  EXPECT_EQ(counters[2].limit.count, 1600);
  for (const auto& counter : counters) EXPECT_EQ(counter.limit.window, std::chrono::minutes(15));
  EXPECT_EQ(counters[0].key, login_client_key("2001:db8:1:2ff::1"));

  auto forgot = client_counters(ClientCounterKind::forgot, "2001:db8:1:2ff::1",
                                RateLimit{7, std::chrono::minutes(1)}, {2, 3});
  EXPECT_EQ(keys_of(forgot), (std::vector<std::string>{"forgot:client:2001:db8:1:2ff::/64",
                                                       "forgot:client:2001:db8:1:200::/56",
                                                       "forgot:client:2001:db8:1::/48"}));
  EXPECT_EQ(forgot[1].limit.count, 14);
  EXPECT_EQ(forgot[2].limit.count, 21);
  EXPECT_EQ(forgot[2].limit.window, std::chrono::minutes(1));
}

// 6 /login 4: /64s of one /56 share its counter; /56s of one /48 share
// the /48's; another /48 shares nothing.
TEST(ClientCounters, Interface_6_Login_4_NeighbouringNetworksShareTheAggregates) {
  auto keys = [](const char* address) {
    return keys_of(client_counters(ClientCounterKind::login, address, kPerClient, kDefaults));
  };
  auto a = keys("2001:db8:1:200::1");
  auto same_56 = keys("2001:db8:1:2ff::1");
  auto same_48 = keys("2001:db8:1:ff00::1");
  auto other_48 = keys("2001:db8:2:200::1");
  EXPECT_NE(a[0], same_56[0]);
  EXPECT_EQ(a[1], same_56[1]);
  EXPECT_EQ(a[2], same_56[2]);
  EXPECT_NE(a[1], same_48[1]);
  EXPECT_EQ(a[2], same_48[2]);
  EXPECT_NE(a[2], other_48[2]);
  EXPECT_NE(a[1], other_48[1]);
}

// A factor of 0 turns that aggregate off.
TEST(ClientCounters, FactorZeroLeavesTheAggregateOut) {
  EXPECT_EQ(keys_of(client_counters(ClientCounterKind::login, "2001:db8::1", kPerClient, {0, 16})),
            (std::vector<std::string>{"login:client:2001:db8::/64", "login:client:2001:db8::/48"}));
  EXPECT_EQ(keys_of(client_counters(ClientCounterKind::login, "2001:db8::1", kPerClient, {0, 0})),
            std::vector<std::string>{"login:client:2001:db8::/64"});
}

}  // namespace
}  // namespace authd
