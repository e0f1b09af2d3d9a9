// The cache of the store's readings for GET /metrics
// (metrics/store_readings_cache.hpp): a flood of scrapes costs at most one
// store query per max age, and never two at once. The clock is a variable
// of the test: no sleeps, no timed assertions.
#include <gtest/gtest.h>

#include "metrics/store_readings_cache.hpp"

namespace authd {
namespace {

using Action = StoreReadingsCache::Action;
using std::chrono::seconds;

struct FakeClock {
  std::chrono::steady_clock::time_point now{};
  StoreReadingsCache::Clock function() {
    return [this] { return now; };
  }
};

StoreReadings readings(std::int64_t live) { return {true, 0, live}; }

TEST(MetricsStoreCache, FirstScrapeQueriesAndLaterOnesUseItUntilItIsOld) {
  FakeClock clock;
  StoreReadingsCache cache(seconds(5), clock.function());
  ASSERT_EQ(cache.begin().action, Action::refresh);
  cache.complete(readings(2));
  for (int i = 0; i < 1000; ++i) {  // a flood within the max age: no query
    auto ticket = cache.begin();
    ASSERT_EQ(ticket.action, Action::use);
    EXPECT_EQ(ticket.readings.live_sessions, 2);
  }
  clock.now += seconds(4);
  EXPECT_EQ(cache.begin().action, Action::use);
  clock.now += seconds(1);  // 5 s old: stale
  ASSERT_EQ(cache.begin().action, Action::refresh);
  cache.complete(readings(1));
  auto ticket = cache.begin();
  EXPECT_EQ(ticket.action, Action::use);
  EXPECT_EQ(ticket.readings.live_sessions, 1);
}

TEST(MetricsStoreCache, OneRefreshAtATimeOthersGetTheLastReadings) {
  FakeClock clock;
  StoreReadingsCache cache(seconds(5), clock.function());
  ASSERT_EQ(cache.begin().action, Action::refresh);
  cache.complete(readings(7));
  clock.now += seconds(60);
  ASSERT_EQ(cache.begin().action, Action::refresh);  // the one query in flight
  for (int i = 0; i < 100; ++i) {
    auto ticket = cache.begin();
    ASSERT_EQ(ticket.action, Action::use) << "a second query while one is in flight";
    EXPECT_EQ(ticket.readings.live_sessions, 7);
  }
  cache.complete(readings(8));
  EXPECT_EQ(cache.begin().readings.live_sessions, 8);
}

TEST(MetricsStoreCache, BeforeTheFirstReadingsOthersWaitForTheQueryInFlight) {
  FakeClock clock;
  StoreReadingsCache cache(seconds(5), clock.function());
  ASSERT_EQ(cache.begin().action, Action::refresh);
  for (int i = 0; i < 100; ++i) ASSERT_EQ(cache.begin().action, Action::wait);
  cache.complete(readings(3));
  auto ticket = cache.begin();
  EXPECT_EQ(ticket.action, Action::use);
  EXPECT_EQ(ticket.readings.live_sessions, 3);
}

TEST(MetricsStoreCache, AnAbandonedQueryLetsTheNextScrapeTryAgain) {
  FakeClock clock;
  StoreReadingsCache cache(seconds(5), clock.function());
  ASSERT_EQ(cache.begin().action, Action::refresh);
  EXPECT_EQ(cache.begin().action, Action::wait);
  cache.abandon();  // the query threw
  EXPECT_EQ(cache.begin().action, Action::refresh);
}

TEST(MetricsStoreCache, AStoreThatDidNotAnswerIsCachedToo) {
  FakeClock clock;
  StoreReadingsCache cache(seconds(5), clock.function());
  ASSERT_EQ(cache.begin().action, Action::refresh);
  cache.complete(StoreReadings{});  // up = false
  auto ticket = cache.begin();
  EXPECT_EQ(ticket.action, Action::use);
  EXPECT_FALSE(ticket.readings.up);
}

}  // namespace
}  // namespace authd
