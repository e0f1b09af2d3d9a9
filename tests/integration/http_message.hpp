// The harness's HTTP messages on the wire, shared by its plain clients
// (harness.cpp) and its HTTPS ones (tls_client.cpp).
#pragma once

#include <string>

#include <boost/beast/http.hpp>

#include "harness.hpp"

namespace authd::test {

using WireRequest = boost::beast::http::request<boost::beast::http::string_body>;
using WireResponse = boost::beast::http::response<boost::beast::http::string_body>;

// An HTTP/1.1 request to 127.0.0.1 with `headers`, and `body` framed when
// there is one (or the method is POST).
WireRequest make_request(const std::string& method, const std::string& target,
                         const Headers& headers, const std::string& body);

// A response read whole, its header names in lower case.
HttpResponse convert(WireResponse& response);

}  // namespace authd::test
