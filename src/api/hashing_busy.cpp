// The answer to a request that the hashing pool cannot take (interface.md
// 4.3): 503 with Retry-After: 1, written when that second is over rather than
// at once. A flood of logins on keep-alive connections sends the next request
// as soon as it has an answer; answered at once, it came back tens of
// thousands of times a second, and parsing and answering those took the
// cores from the hashes (11 logins/s served during a 5,000-connection flood
// against 116 without it). Held for its second on a timer, each flooding
// connection costs one request a second, and no thread waits. The wait is
// drawn between 0.5 and 1.5 s rather than exactly 1 s: a storm that starts
// at once would otherwise come back in one wave a second, each wave a burst
// of work that the other routes' requests queue behind.
//
// The http layer holds the answer (http/exchange.cpp, serve_request), not
// the handler: by then the handler's state, the parsed body and the request's
// headers are freed (and a password in them wiped), so that a waiting request
// holds little more than its connection
// (docs/design/performance-choices.md#a-busy-503-held-without-its-request).
#include "api/errors.hpp"

#include <sodium.h>

namespace authd {

ApiResponse hashing_busy() {
  constexpr auto kRetryAfter = std::chrono::seconds(1);
  ApiResponse busy = service_unavailable(kRetryAfter);
  busy.hold = std::chrono::milliseconds(500 + randombytes_uniform(1001));
  return busy;
}

}  // namespace authd
