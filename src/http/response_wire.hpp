// A response as the bytes that go on the wire, in one buffer.
//
// Beast's message and serializer (a list of fields, then nested buffer views
// over it) cost about 20,000 user-space instructions for a small JSON
// answer, two thirds of the trivial-HTTP server's whole request
// (docs/design/performance-choices.md#responses-written-from-one-string).
// authd's responses are small and complete when written, so the server writes
// them from one string: one allocation and one send. Requests are still parsed
// by Beast.
#pragma once

#include <string>
#include <string_view>

#include "api/api.hpp"

namespace authd {

// What the connection adds to a handler's answer.
struct ResponseFrame {
  unsigned version = 11;  // the request's: 10 or 11
  bool keep_alive = true;
  bool head = false;  // HEAD: the headers the GET answer has, never a body
  std::string_view date;
  std::string_view request_id;
  bool https = false;  // the listener speaks TLS: Strict-Transport-Security
};

// The status line; Content-Type and Cache-Control: no-store, each replaced
// by a handler header of the same name; Date and X-Request-Id;
// Strict-Transport-Security over HTTPS (interface.md 13.3); the handler's
// headers in order; Connection where HTTP/1.x needs it spelled
// out; Content-Length (none on 1xx, 204 and 304: RFC 9110 8.6); the empty
// line; and the body unless `head`. The same bytes as Beast's message with
// set(), keep_alive() and prepare_payload() (tests/unit/response_wire_test).
std::string response_wire(const ApiResponse& response, const ResponseFrame& frame);

// Zeroes a sent response that holds a secret (ApiResponse::holds_secret):
// its body, its handler headers' values and its wire bytes.
void wipe_sent_response(ApiResponse& response, std::string& wire);

}  // namespace authd
