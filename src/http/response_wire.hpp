// A response as the bytes that go on the wire, in one buffer.
//
// Beast's serializer walks the header and the body through nested buffer
// views: for a small JSON answer that cost more user-space instructions
// than the whole request of the trivial-HTTP server (docs/performance.md,
// section 12). authd's responses are small and complete when written, so
// the server writes them flat: one allocation and one send.
#pragma once

#include <string>

#include <boost/beast/http/message.hpp>
#include <boost/beast/http/string_body.hpp>

namespace authd {

// The status line, every field as it is set (nothing added: Content-Length
// and Connection are whatever prepare_payload() and keep_alive() left), the
// empty line, and the body. Byte for byte what beast::http::write sends.
std::string response_wire(const boost::beast::http::response<boost::beast::http::string_body>& res);

}  // namespace authd
