// The PROXY protocol header (HAProxy's proxy-protocol.txt, versions 1 and
// 2) that a load balancer sends first on each connection, naming the client
// it accepted (interface.md 13.2). Pure: bytes in, a verdict out, so that
// every form has a unit test (tests/unit/proxy_protocol_test.cpp); the
// server reads the bytes (http/server.cpp).
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace authd {

// The longest header accepted: a version 1 header is at most 107 bytes; a
// version 2 one is 16 bytes and its addresses, plus whatever TLVs the
// balancer adds (AWS and GCP add a few dozen bytes). Longer: invalid.
inline constexpr std::size_t kMaxProxyHeader = 16 + 1024;

struct ProxyHeader {
  enum class Status {
    need_more,  // a valid start: read on
    invalid,    // not a PROXY header, or a malformed one: close
    complete,
  } status = Status::need_more;
  std::size_t length = 0;  // bytes of the header when complete
  // The client's address; nothing when the header names none (v1 UNKNOWN,
  // v2 LOCAL such as the balancer's own health checks, or an address
  // family other than TCP over IPv4/IPv6): then the peer is the client.
  std::optional<std::string> source;
};

// The header at the start of `bytes` (what has arrived so far).
ProxyHeader parse_proxy_header(std::string_view bytes);

}  // namespace authd
