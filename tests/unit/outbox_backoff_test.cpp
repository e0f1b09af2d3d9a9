// mail/outbox_worker: delivery retries with capped exponential backoff
// (interface.md 6 /forgot 4).
#include <gtest/gtest.h>

#include <chrono>

#include "mail/outbox_worker.hpp"

namespace authd {
namespace {

using namespace std::chrono_literals;

// interface.md 6 /forgot 4: the delay doubles from the first retry...
TEST(OutboxBackoff, DoublesFromTheFirstRetry) {
  Duration first = 2s, max = 10min;
  EXPECT_EQ(OutboxWorker::backoff(1, first, max), Duration(2s));
  EXPECT_EQ(OutboxWorker::backoff(2, first, max), Duration(4s));
  EXPECT_EQ(OutboxWorker::backoff(3, first, max), Duration(8s));
  EXPECT_EQ(OutboxWorker::backoff(4, first, max), Duration(16s));
  EXPECT_EQ(OutboxWorker::backoff(8, first, max), Duration(256s));
}

// ...and is capped at the maximum, even after very many attempts.
TEST(OutboxBackoff, IsCappedAtTheMaximum) {
  Duration first = 2s, max = 10min;
  EXPECT_EQ(OutboxWorker::backoff(9, first, max), Duration(512s));
  EXPECT_EQ(OutboxWorker::backoff(10, first, max), Duration(10min));  // 1024 s -> 600 s
  EXPECT_EQ(OutboxWorker::backoff(1000, first, max), Duration(10min));
  EXPECT_EQ(OutboxWorker::backoff(2'000'000'000, first, max), Duration(10min));
  EXPECT_EQ(OutboxWorker::backoff(1, 1h, 10min), Duration(10min));  // first above max
}

// Never shorter than the first retry, never decreasing.
TEST(OutboxBackoff, IsMonotonic) {
  Duration first = 1500ms, max = 1h;
  EXPECT_EQ(OutboxWorker::backoff(0, first, max), first);
  Duration previous = first;
  for (int attempts = 1; attempts < 100; ++attempts) {
    Duration delay = OutboxWorker::backoff(attempts, first, max);
    EXPECT_GE(delay, previous) << attempts;
    EXPECT_LE(delay, max) << attempts;
    previous = delay;
  }
}

}  // namespace
}  // namespace authd
