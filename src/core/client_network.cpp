#include "core/client_network.hpp"

#include <arpa/inet.h>

#include <cstring>

namespace authd {

std::optional<std::string> ipv6_network(std::string_view address, int prefix) {
  std::string text(address);
  in6_addr ip6{};
  if (inet_pton(AF_INET6, text.c_str(), &ip6) != 1 || IN6_IS_ADDR_V4MAPPED(&ip6))
    return std::nullopt;
  std::memset(ip6.s6_addr + prefix / 8, 0, 16 - prefix / 8);
  char out[INET6_ADDRSTRLEN];
  inet_ntop(AF_INET6, &ip6, out, sizeof out);
  return std::string(out) + "/" + std::to_string(prefix);
}

std::string client_network(std::string_view address) {
  return ipv6_network(address, 64).value_or(std::string(address));
}

}  // namespace authd
