// The client address of a request (interface.md 13.1): the TCP peer, or,
// when the peer is a trusted proxy (--trusted-proxies), the client that the
// proxies name in X-Forwarded-For or Forwarded (RFC 7239). Throttling and
// logs use it. Pure functions of their arguments: no I/O, no Beast.
//
// What is trusted, and what is not:
// - From a peer that is not a trusted proxy, both headers are ignored: any
//   client can send them.
// - From a trusted proxy, the list is read from the right (the hop nearest
//   to authd) and the first address that is not itself a trusted proxy is
//   the client. Entries left of it were written by hops we do not trust
//   (or by the client) and are never looked at, so a forged entry that a
//   proxy appends to cannot move the choice.
// - Anything that cannot be read without guessing makes the peer the
//   client: a malformed entry on the way (not a literal address, "unknown",
//   an obfuscated identifier, an empty entry), a Forwarded element without
//   exactly one `for`, or both headers at once (which of the two the proxy
//   wrote cannot be known, and the other came from the client). Every such
//   request then shares the proxy's one bucket, so garbage never buys an
//   attacker a fresh throttling key.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <boost/asio/ip/address.hpp>

namespace authd {

// An IPv4 or IPv6 network in CIDR notation. An IPv4-mapped IPv6 address
// (::ffff:a.b.c.d, what a dual-stack socket reports for an IPv4 peer) is
// matched as the IPv4 address it maps.
class IpNetwork {
 public:
  // "10.0.0.0/8", "2001:db8::/32", or a bare address (a /32 or /128).
  // Nothing for anything else, and for host bits set past the prefix
  // ("10.0.0.1/8"): that is most likely a typo for another network.
  static std::optional<IpNetwork> parse(std::string_view text);

  bool contains(const boost::asio::ip::address& address) const;
  bool contains_everything() const { return prefix_ == 0; }
  std::string to_string() const;

 private:
  IpNetwork(const boost::asio::ip::address& base, unsigned prefix) : base_(base), prefix_(prefix) {}
  boost::asio::ip::address base_;
  unsigned prefix_;
};

using TrustedProxies = std::vector<IpNetwork>;

// A literal IPv4 or IPv6 address, IPv4-mapped IPv6 ones as IPv4; nothing for
// anything else (host names, zone indices such as "%eth0", ports, brackets).
std::optional<boost::asio::ip::address> parse_ip_address(std::string_view text);

// The forwarding header fields of one request: every field of each name, in
// the order received. Several fields of one name are one comma-separated
// list (RFC 9110 5.3).
struct ForwardingFields {
  std::vector<std::string_view> x_forwarded_for;
  std::vector<std::string_view> forwarded;
};

// True when `peer` (a TCP peer's address as text) is in a trusted network:
// its connections carry many clients (the connection caps exempt it from
// the per-client one).
bool is_trusted_proxy(std::string_view peer, const TrustedProxies& trusted);

// The client address, in canonical text form (RFC 5952 for IPv6): see the
// top of this file. `peer` is the TCP peer's address as text.
std::string choose_client_address(std::string_view peer, const ForwardingFields& fields,
                                  const TrustedProxies& trusted);

}  // namespace authd
