// Fuzz target: the client address behind trusted proxies
// (http/client_address.cpp, interface.md 13.1). The first line of the input
// is parsed as a --trusted-proxies network and as an address; the other
// lines are header fields, X-Forwarded-For when they start with 'x',
// Forwarded otherwise, from a trusted peer.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "http/client_address.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  std::vector<std::string_view> lines;
  while (true) {
    auto newline = text.find('\n');
    lines.push_back(text.substr(0, newline));
    if (newline == std::string_view::npos) break;
    text.remove_prefix(newline + 1);
  }

  // A network that parses prints as one that parses to itself.
  if (auto network = authd::IpNetwork::parse(lines.front())) {
    auto again = authd::IpNetwork::parse(network->to_string());
    if (!again || again->to_string() != network->to_string()) std::abort();
  }
  authd::parse_ip_address(lines.front());

  authd::TrustedProxies trusted = {*authd::IpNetwork::parse("10.0.0.0/8"),
                                   *authd::IpNetwork::parse("2001:db8:ffff::/48")};
  authd::ForwardingFields fields;
  for (std::size_t i = 1; i < lines.size(); ++i) {
    std::string_view line = lines[i];
    bool x = !line.empty() && line.front() == 'x';
    if (!line.empty()) line.remove_prefix(1);
    (x ? fields.x_forwarded_for : fields.forwarded).push_back(line);
  }
  const std::string peer = "10.0.0.1";
  std::string client = authd::choose_client_address(peer, fields, trusted);
  // Always one literal address, in canonical form: the peer, or one that
  // the fields named.
  auto address = authd::parse_ip_address(client);
  if (!address || address->to_string() != client) std::abort();
  // From an untrusted peer, the fields never matter.
  if (authd::choose_client_address("192.0.2.1", fields, trusted) != "192.0.2.1") std::abort();
  return 0;
}
