// The networks a client address belongs to, as the per-client limits count
// them (interface.md 6 /login 4, 13.1): the throttles (auth/login/throttle.hpp)
// and the connection caps (http/connection_registry.hpp) both key a client
// by these, so they sit below both.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace authd {

// The IPv6 network of `address` with `prefix` bits (a multiple of 8), as
// "net/prefix"; nothing when `address` is not IPv6 (or is IPv4-mapped).
std::optional<std::string> ipv6_network(std::string_view address, int prefix);

// The part of a client address that per-client limits count: the whole
// IPv4 address, but an IPv6 address's /64 network, since one subscriber
// usually holds a whole /64 and could otherwise rotate through it.
std::string client_network(std::string_view address);

}  // namespace authd
