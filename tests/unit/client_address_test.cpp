// http/client_address: interface.md 13.1, the client address behind trusted
// proxies. Tables of header values, each with the address authd must take.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "http/client_address.hpp"

namespace authd {
namespace {

TrustedProxies networks(const std::vector<std::string>& texts) {
  TrustedProxies out;
  for (const auto& text : texts) {
    auto network = IpNetwork::parse(text);
    EXPECT_TRUE(network.has_value()) << text;
    if (network) out.push_back(*network);
  }
  return out;
}

TEST(IpNetwork, Interface_13_1_ParsesCidrOfBothFamilies) {
  struct Case {
    std::string text;
    std::string canonical;  // empty: refused
  };
  const Case cases[] = {
      {"127.0.0.1/32", "127.0.0.1/32"},
      {"10.0.0.0/8", "10.0.0.0/8"},
      {"192.0.2.7", "192.0.2.7/32"},
      {"0.0.0.0/0", "0.0.0.0/0"},
      {"2001:db8::/32", "2001:db8::/32"},
      {"2001:DB8:0:0::/64", "2001:db8::/64"},
      {"::1", "::1/128"},
      {"::/0", "::/0"},
      {"::ffff:10.0.0.0/104", "10.0.0.0/8"},  // IPv4-mapped: the IPv4 network
      {"10.0.0.1/8", ""},                     // host bits set: a typo for another network
      {"2001:db8::1/64", ""},
      {"10.0.0.0/33", ""},
      {"2001:db8::/129", ""},
      {"10.0.0.0/", ""},
      {"10.0.0.0/08", ""},
      {"10.0.0.0/+8", ""},
      {"10.0.0.0/8/8", ""},
      {"10.0.0/8", ""},
      {"example.com/32", ""},
      {"fe80::/10%eth0", ""},
      {"fe80::1%eth0", ""},
      {"[2001:db8::]/32", ""},
      {" 10.0.0.0/8", ""},
      {"", ""},
  };
  for (const auto& c : cases) {
    auto network = IpNetwork::parse(c.text);
    if (c.canonical.empty()) {
      EXPECT_FALSE(network.has_value()) << c.text;
    } else {
      ASSERT_TRUE(network.has_value()) << c.text;
      EXPECT_EQ(network->to_string(), c.canonical) << c.text;
    }
  }
}

TEST(IpNetwork, Interface_13_1_ContainsByPrefix) {
  auto address = [](const char* text) { return *parse_ip_address(text); };
  auto v4 = *IpNetwork::parse("10.1.0.0/16");
  EXPECT_TRUE(v4.contains(address("10.1.255.3")));
  EXPECT_FALSE(v4.contains(address("10.2.0.1")));
  EXPECT_TRUE(v4.contains(boost::asio::ip::make_address("::ffff:10.1.2.3")));  // a dual-stack peer
  EXPECT_FALSE(v4.contains(address("2001:db8::1")));
  auto v6 = *IpNetwork::parse("2001:db8:aa00::/40");
  EXPECT_TRUE(v6.contains(address("2001:db8:aaff:1::1")));
  EXPECT_FALSE(v6.contains(address("2001:db8:ab00::1")));
  EXPECT_FALSE(v6.contains(address("10.1.2.3")));
  auto odd = *IpNetwork::parse("192.0.2.128/25");
  EXPECT_TRUE(odd.contains(address("192.0.2.200")));
  EXPECT_FALSE(odd.contains(address("192.0.2.127")));
  EXPECT_TRUE(IpNetwork::parse("0.0.0.0/0")->contains_everything());
  EXPECT_FALSE(v4.contains_everything());
}

struct ChoiceCase {
  std::string peer;
  std::vector<std::string_view> x_forwarded_for;
  std::vector<std::string_view> forwarded;
  std::string client;
};

void expect_choices(const TrustedProxies& trusted, const std::vector<ChoiceCase>& cases) {
  for (const auto& c : cases) {
    std::string described = "peer " + c.peer;
    for (auto v : c.x_forwarded_for) described += " | X-Forwarded-For: " + std::string(v);
    for (auto v : c.forwarded) described += " | Forwarded: " + std::string(v);
    EXPECT_EQ(choose_client_address(c.peer, {c.x_forwarded_for, c.forwarded}, trusted), c.client)
        << described;
  }
}

// 13.1: no trusted proxies (the default): the peer, whatever the headers say.
TEST(ClientAddress, Interface_13_1_WithoutTrustedProxiesThePeerIsTheClient) {
  expect_choices({}, {
                         {"127.0.0.1", {}, {}, "127.0.0.1"},
                         {"127.0.0.1", {"203.0.113.9"}, {}, "127.0.0.1"},
                         {"127.0.0.1", {}, {"for=203.0.113.9"}, "127.0.0.1"},
                     });
}

// 13.1: from a peer that is not a trusted proxy, both headers are ignored.
TEST(ClientAddress, Interface_13_1_HeadersFromAnUntrustedPeerAreIgnored) {
  expect_choices(networks({"10.0.0.0/8"}),
                 {
                     {"192.0.2.1", {"203.0.113.9"}, {}, "192.0.2.1"},
                     {"192.0.2.1", {}, {"for=203.0.113.9"}, "192.0.2.1"},
                     {"2001:db8::5", {"203.0.113.9"}, {}, "2001:db8::5"},
                     {"::ffff:192.0.2.1", {"203.0.113.9"}, {}, "192.0.2.1"},
                 });
}

// 13.1: X-Forwarded-For from a trusted proxy: the rightmost address that is
// not itself a trusted proxy; several fields are one list.
TEST(ClientAddress, Interface_13_1_XForwardedForRightmostUntrustedAddress) {
  expect_choices(networks({"10.0.0.0/8", "2001:db8:ffff::/48"}),
                 {
                     {"10.0.0.1", {"203.0.113.9"}, {}, "203.0.113.9"},
                     {"10.0.0.1", {"203.0.113.9 "}, {}, "203.0.113.9"},
                     {"10.0.0.1", {"\t203.0.113.9"}, {}, "203.0.113.9"},
                     // What the client sent is left of what the proxy appended.
                     {"10.0.0.1", {"198.51.100.1, 203.0.113.9"}, {}, "203.0.113.9"},
                     {"10.0.0.1", {"forged garbage, 203.0.113.9"}, {}, "203.0.113.9"},
                     {"10.0.0.1", {", 203.0.113.9"}, {}, "203.0.113.9"},
                     // A chain of trusted proxies is skipped.
                     {"10.0.0.1", {"203.0.113.9, 10.0.0.2, 10.9.9.9"}, {}, "203.0.113.9"},
                     {"10.0.0.1", {"198.51.100.1, 203.0.113.9, 10.0.0.2"}, {}, "203.0.113.9"},
                     // Several fields: one comma-joined list, in order.
                     {"10.0.0.1", {"198.51.100.1", "203.0.113.9"}, {}, "203.0.113.9"},
                     {"10.0.0.1", {"198.51.100.1", "203.0.113.9, 10.0.0.2"}, {}, "203.0.113.9"},
                     {"10.0.0.1", {"203.0.113.9", "10.0.0.2"}, {}, "203.0.113.9"},
                     // IPv6, in canonical form; an IPv4-mapped one as IPv4.
                     {"10.0.0.1", {"2001:DB8:0:0:1::7"}, {}, "2001:db8::1:0:0:7"},
                     {"10.0.0.1", {"2001:db8::7, 2001:db8:ffff:1::1"}, {}, "2001:db8::7"},
                     {"10.0.0.1", {"::ffff:203.0.113.9"}, {}, "203.0.113.9"},
                     {"2001:db8:ffff::1", {"203.0.113.9"}, {}, "203.0.113.9"},
                     {"::ffff:10.0.0.1", {"203.0.113.9"}, {}, "203.0.113.9"},  // a dual-stack peer
                     // Every hop trusted: the farthest one.
                     {"10.0.0.1", {"10.0.0.3, 10.0.0.2"}, {}, "10.0.0.3"},
                 });
}

// 13.1 (documented choice): what cannot be read without guessing makes the
// peer the client; never a value taken from garbage.
TEST(ClientAddress, Interface_13_1_MalformedOrAmbiguousFallsBackToThePeer) {
  expect_choices(networks({"10.0.0.0/8"}),
                 {
                     {"10.0.0.1", {}, {}, "10.0.0.1"},  // the proxy's own request
                     {"10.0.0.1", {""}, {}, "10.0.0.1"},
                     {"10.0.0.1", {"203.0.113.9,"}, {}, "10.0.0.1"},
                     {"10.0.0.1", {"203.0.113.9, "}, {}, "10.0.0.1"},
                     {"10.0.0.1", {"203.0.113.9", ""}, {}, "10.0.0.1"},
                     {"10.0.0.1", {"garbage"}, {}, "10.0.0.1"},
                     {"10.0.0.1", {"203.0.113.9:4711"}, {}, "10.0.0.1"},
                     {"10.0.0.1", {"[2001:db8::7]"}, {}, "10.0.0.1"},
                     {"10.0.0.1", {"unknown"}, {}, "10.0.0.1"},
                     {"10.0.0.1", {"fe80::1%eth0"}, {}, "10.0.0.1"},
                     {"10.0.0.1", {"203.0.113.009"}, {}, "10.0.0.1"},
                     {"10.0.0.1", {"203.0.113.9 198.51.100.1"}, {}, "10.0.0.1"},
                     {"10.0.0.1", {"example.com"}, {}, "10.0.0.1"},
                     // Garbage between the client and the trusted hops is on the way.
                     {"10.0.0.1", {"203.0.113.9, garbage, 10.0.0.2"}, {}, "10.0.0.1"},
                     // Both headers: which one the proxy wrote cannot be known.
                     {"10.0.0.1", {"203.0.113.9"}, {"for=198.51.100.1"}, "10.0.0.1"},
                 });
}

// 13.1: Forwarded (RFC 7239) from a trusted proxy: the `for` of each
// element, read like X-Forwarded-For.
TEST(ClientAddress, Interface_13_1_ForwardedForRightmostUntrustedAddress) {
  expect_choices(
      networks({"10.0.0.0/8"}),
      {
          {"10.0.0.1", {}, {"for=203.0.113.9"}, "203.0.113.9"},
          {"10.0.0.1", {}, {"FOR=203.0.113.9"}, "203.0.113.9"},
          {"10.0.0.1", {}, {"for=\"203.0.113.9\""}, "203.0.113.9"},
          {"10.0.0.1", {}, {"for=\"203.0.113.9:4711\""}, "203.0.113.9"},
          {"10.0.0.1", {}, {"for=\"203.0.113.9:_port\""}, "203.0.113.9"},
          {"10.0.0.1", {}, {"for=\"[2001:db8:cafe::17]\""}, "2001:db8:cafe::17"},
          {"10.0.0.1", {}, {"for=\"[2001:db8:cafe::17]:4711\""}, "2001:db8:cafe::17"},
          {"10.0.0.1", {}, {"for=\"[::ffff:203.0.113.9]\""}, "203.0.113.9"},
          {"10.0.0.1", {}, {"for=192.0.2.43;proto=https;by=10.0.0.1;host=\"a;b,c\""}, "192.0.2.43"},
          {"10.0.0.1", {}, {"proto=https;for=192.0.2.43"}, "192.0.2.43"},
          {"10.0.0.1", {}, {"for=192.0.2.43, for=198.51.100.17"}, "198.51.100.17"},
          {"10.0.0.1", {}, {"for=192.0.2.43,for=198.51.100.17;by=10.0.0.1"}, "198.51.100.17"},
          {"10.0.0.1", {}, {"for=198.51.100.17, for=10.0.0.2"}, "198.51.100.17"},
          {"10.0.0.1", {}, {"for=192.0.2.43", "for=198.51.100.17"}, "198.51.100.17"},
          // The client's part is never read, not even its quotes.
          {"10.0.0.1", {}, {"for=\"unterminated", "for=198.51.100.17"}, "198.51.100.17"},
          {"10.0.0.1", {}, {"for=garbage!, for=198.51.100.17"}, "198.51.100.17"},
          {"10.0.0.1", {}, {"for=unknown, for=198.51.100.17"}, "198.51.100.17"},
      });
}

TEST(ClientAddress, Interface_13_1_MalformedForwardedFallsBackToThePeer) {
  expect_choices(networks({"10.0.0.0/8"}),
                 {
                     {"10.0.0.1", {}, {""}, "10.0.0.1"},
                     {"10.0.0.1", {}, {"for=unknown"}, "10.0.0.1"},
                     {"10.0.0.1", {}, {"for=_hidden"}, "10.0.0.1"},
                     {"10.0.0.1", {}, {"proto=https"}, "10.0.0.1"},  // no `for`
                     {"10.0.0.1", {}, {"for=192.0.2.43;for=198.51.100.17"}, "10.0.0.1"},
                     {"10.0.0.1", {}, {"for=[2001:db8::17]"}, "10.0.0.1"},  // must be quoted
                     {"10.0.0.1", {}, {"for=2001:db8::17"}, "10.0.0.1"},
                     {"10.0.0.1", {}, {"for=\"2001:db8::17\""}, "10.0.0.1"},  // no brackets
                     {"10.0.0.1", {}, {"for=\"[192.0.2.43]\""}, "10.0.0.1"},
                     {"10.0.0.1", {}, {"for=192.0.2.43:4711"}, "10.0.0.1"},  // must be quoted
                     {"10.0.0.1", {}, {"for=\"192.0.2.43:\""}, "10.0.0.1"},
                     {"10.0.0.1", {}, {"for=\"192.0.2.43:123456\""}, "10.0.0.1"},
                     {"10.0.0.1", {}, {"for=\"[2001:db8::17\""}, "10.0.0.1"},
                     {"10.0.0.1", {}, {"for=\"[2001:db8::17]x\""}, "10.0.0.1"},
                     {"10.0.0.1", {}, {"for=\"192.0.2.43"}, "10.0.0.1"},
                     {"10.0.0.1", {}, {"for"}, "10.0.0.1"},
                     {"10.0.0.1", {}, {"=192.0.2.43"}, "10.0.0.1"},
                     {"10.0.0.1", {}, {"for=192.0.2.43,"}, "10.0.0.1"},
                 });
}

}  // namespace
}  // namespace authd
