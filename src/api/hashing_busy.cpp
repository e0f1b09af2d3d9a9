// The answer to a request that the hashing pool cannot take (interface.md
// 4.3): 503 with Retry-After: 1, sent when that second is over rather than at
// once. A flood of logins on keep-alive connections sends the next request as
// soon as it has an answer; answered at once, it came back tens of thousands
// of times a second, and parsing and answering those took the cores from the
// hashes (issue "Under faults and overload", item 5: 11 logins/s served during
// a 5,000-connection flood against 116 without it). Held for its second on a
// timer, each flooding connection costs one request a second, a waiting
// request holds only its connection's memory, and no thread waits. The wait
// is drawn between 0.5 and 1.5 s rather than exactly 1 s: a storm that
// starts at once would otherwise come back in one wave a second, each wave a
// burst of work that the other routes' requests queue behind.
#include "api/errors.hpp"

#include <sodium.h>

#include <boost/asio/redirect_error.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>

namespace authd {

boost::asio::awaitable<ApiResponse> hashing_busy() {
  constexpr auto kRetryAfter = std::chrono::seconds(1);
  auto executor = co_await boost::asio::this_coro::executor;
  auto delay = std::chrono::milliseconds(500 + randombytes_uniform(1001));
  boost::asio::steady_timer wait(executor, delay);
  boost::system::error_code ignored;  // cancelled: answer now
  co_await wait.async_wait(boost::asio::redirect_error(boost::asio::use_awaitable, ignored));
  co_return service_unavailable(kRetryAfter);
}

}  // namespace authd
