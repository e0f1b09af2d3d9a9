// One request on a connection, from its first bytes to its log line, cut
// into the steps Beast's examples use: read the head, read the body, answer
// (route and handler), write the response, log and observe. http/server.cpp
// owns the connection and its loop; each request runs in a coroutine of its
// own (serve_request), so that its parser, response and handler state exist
// only while it is handled, not while an idle keep-alive connection waits
// (docs/design/performance-choices.md#per-request-state).
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <string>

#include <boost/asio/awaitable.hpp>
#include <boost/asio/steady_timer.hpp>

#include "api/api.hpp"
#include "http/http_stream.hpp"
#include "http/request_checks.hpp"
#include "http/server.hpp"

namespace authd {

// What every request of one listener reads: its settings, the API behind
// it, and whether the server is draining (Server::State owns all three);
// and where the request's connection keeps the timer of a held answer
// while it waits, so that a drain can end the wait (http/server.cpp).
struct ExchangeContext {
  const HttpSettings& settings;
  ApiContext& api;
  const std::atomic<bool>& draining;
  boost::asio::steady_timer*& held_answer;
};

// What a request leaves its connection to do next.
enum class After { next_request, close, close_lingering };

// Beast's limit on the request line and header fields together: the
// target's and the header section's limits, and room for the request line's
// other parts.
inline std::uint32_t parser_header_limit(const HttpSettings& settings) {
  return static_cast<std::uint32_t>(settings.max_target + settings.max_header_section + 1024);
}

// The most a connection's read buffer holds: a whole header section, and a
// little more for reads that cross its end.
inline std::size_t max_buffered(const HttpSettings& settings) {
  return parser_header_limit(settings) + 8 * 1024;
}

// One request, its first bytes already in `buffer` (what follows them is
// left there for the next request). `header_deadline_set`: the stream's
// deadline already runs for this header (a new connection's, from the
// accept).
boost::asio::awaitable<After> serve_request(HttpStream& stream, const std::string& peer,
                                            ReadBuffer& buffer, bool header_deadline_set,
                                            ExchangeContext context);

}  // namespace authd
