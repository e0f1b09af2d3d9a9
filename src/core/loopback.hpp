// Whether a host name or address stays on this machine: "localhost", or a
// numeric loopback address (127.0.0.0/8, ::1). Numeric addresses are judged
// by value, so that a name such as "127.mail.example" is not taken for one.
// Used where a setting is safe only locally: SMTP in clear, PostgreSQL
// without verified TLS.
#pragma once

#include <arpa/inet.h>

#include <string>
#include <string_view>

#include "core/ascii.hpp"

namespace authd {

inline bool is_loopback_host(std::string_view name) {
  std::string host(name);
  in_addr v4{};
  if (::inet_pton(AF_INET, host.c_str(), &v4) == 1) return (ntohl(v4.s_addr) >> 24) == 127;
  in6_addr v6{};
  if (::inet_pton(AF_INET6, host.c_str(), &v6) == 1) return IN6_IS_ADDR_LOOPBACK(&v6);
  return equals_ignoring_case(host, "localhost");
}

}  // namespace authd
