// api/hashing_busy.cpp: the 503 of a request the hashing pool has no room
// for (interface.md 4.3) is the contract's error with Retry-After: 1, held
// by the http layer (http/exchange.cpp) for 0.5 to 1.5 s before it is
// written, once the handler's state is freed
// (docs/design/performance-choices.md#a-busy-503-held-without-its-request has
// what that saves under a 5,000-connection flood).
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <string>

#include "api/errors.hpp"

namespace authd {
namespace {

TEST(HashingBusy, Interface_4_3_IsA503WithRetryAfterHeldBetweenHalfASecondAndOneAndAHalf) {
  std::chrono::milliseconds shortest{2'000};
  std::chrono::milliseconds longest{0};
  for (int i = 0; i < 200; ++i) {
    ApiResponse busy = hashing_busy();
    EXPECT_EQ(busy.status, 503);
    EXPECT_EQ(busy.body, R"({"code":503,"message":"Service Unavailable"})");
    auto retry_after = std::find_if(busy.headers.begin(), busy.headers.end(),
                                    [](const auto& h) { return h.first == "Retry-After"; });
    ASSERT_NE(retry_after, busy.headers.end());
    EXPECT_EQ(retry_after->second, "1");
    shortest = std::min(shortest, busy.hold);
    longest = std::max(longest, busy.hold);
  }
  EXPECT_GE(shortest.count(), 500);
  EXPECT_LE(longest.count(), 1'500);
  EXPECT_LT(shortest, longest) << "every wait was drawn the same";
}

// Every other answer is written at once.
TEST(HashingBusy, OtherErrorsAreNotHeld) {
  EXPECT_EQ(service_unavailable(std::chrono::seconds(1)).hold.count(), 0);
  EXPECT_EQ(error_response(401).hold.count(), 0);
}

}  // namespace
}  // namespace authd
