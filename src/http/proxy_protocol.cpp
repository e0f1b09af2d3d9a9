#include "http/proxy_protocol.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <vector>

#include <boost/asio/ip/address.hpp>

#include "http/client_address.hpp"

namespace authd {
namespace {

using Status = ProxyHeader::Status;

constexpr std::string_view kV1Prefix = "PROXY ";
constexpr std::size_t kV1Max = 107;  // proxy-protocol.txt 2.1, CRLF included
constexpr std::string_view kV2Signature("\r\n\r\n\0\r\nQUIT\n", 12);

ProxyHeader invalid() { return {Status::invalid, 0, std::nullopt}; }
ProxyHeader need_more() { return {Status::need_more, 0, std::nullopt}; }

// `bytes` may still become `expected`: it is a prefix of it, or starts with it.
bool may_start(std::string_view bytes, std::string_view expected) {
  std::size_t n = std::min(bytes.size(), expected.size());
  return bytes.substr(0, n) == expected.substr(0, n);
}

std::vector<std::string_view> split_spaces(std::string_view line) {
  std::vector<std::string_view> words;
  while (!line.empty()) {
    std::size_t space = line.find(' ');
    words.push_back(line.substr(0, space));
    if (space == std::string_view::npos) break;
    line.remove_prefix(space + 1);
  }
  return words;
}

bool is_port(std::string_view text) {
  unsigned port = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), port);
  // No leading zero but for "0" itself (proxy-protocol.txt 2.1).
  return ec == std::errc{} && end == text.data() + text.size() && port <= 65535 &&
         (text.size() == 1 || text.front() != '0');
}

// An address of the family the header names, written as the family writes it.
bool is_address(std::string_view text, bool v4) {
  auto address = parse_ip_address(text);
  if (!address) return false;
  // parse_ip_address reads an IPv4-mapped IPv6 address as IPv4: TCP6 must
  // still hold a colon, TCP4 none.
  bool written_v6 = text.find(':') != std::string_view::npos;
  return v4 ? !written_v6 : written_v6;
}

// "PROXY TCP4 <src> <dst> <sport> <dport>\r\n", TCP6 alike, or
// "PROXY UNKNOWN[ anything]\r\n".
ProxyHeader parse_v1(std::string_view bytes) {
  std::size_t end = bytes.find("\r\n");
  if (end == std::string_view::npos) return bytes.size() >= kV1Max ? invalid() : need_more();
  if (end + 2 > kV1Max) return invalid();
  std::vector<std::string_view> words =
      split_spaces(bytes.substr(kV1Prefix.size(), end - kV1Prefix.size()));
  if (!words.empty() && words[0] == "UNKNOWN") return {Status::complete, end + 2, std::nullopt};
  if (words.size() != 5 || (words[0] != "TCP4" && words[0] != "TCP6")) return invalid();
  bool v4 = words[0] == "TCP4";
  if (!is_address(words[1], v4) || !is_address(words[2], v4) || !is_port(words[3]) ||
      !is_port(words[4]))
    return invalid();
  return {Status::complete, end + 2, parse_ip_address(words[1])->to_string()};
}

// 12 bytes of signature, version and command, family and protocol, the
// length of what follows (big-endian), then the addresses and TLVs.
ProxyHeader parse_v2(std::string_view bytes) {
  if (bytes.size() < 16) return need_more();
  auto byte = [&](std::size_t i) { return static_cast<unsigned char>(bytes[i]); };
  unsigned version = byte(12) >> 4, command = byte(12) & 0x0F;
  if (version != 2 || command > 1) return invalid();
  std::size_t length = 16 + (std::size_t{byte(14)} << 8 | byte(15));
  if (length > kMaxProxyHeader) return invalid();
  unsigned family = byte(13);
  std::size_t needed = family == 0x11 ? 12 : family == 0x21 ? 36 : 0;  // TCP over IPv4, IPv6
  if (length - 16 < needed) return invalid();
  if (bytes.size() < length) return need_more();
  // LOCAL (the balancer's own connection) or another family: the peer.
  if (command == 0 || needed == 0) return {Status::complete, length, std::nullopt};
  if (family == 0x11) {
    boost::asio::ip::address_v4::bytes_type raw;
    std::copy_n(bytes.data() + 16, raw.size(), raw.begin());
    return {Status::complete, length, boost::asio::ip::address_v4(raw).to_string()};
  }
  boost::asio::ip::address_v6::bytes_type raw;
  std::copy_n(bytes.data() + 16, raw.size(), raw.begin());
  boost::asio::ip::address_v6 v6(raw);
  // An IPv4 client of a dual-stack balancer, as the rest of authd writes it.
  if (v6.is_v4_mapped())
    return {Status::complete, length,
            boost::asio::ip::make_address_v4(boost::asio::ip::v4_mapped, v6).to_string()};
  return {Status::complete, length, v6.to_string()};
}

}  // namespace

ProxyHeader parse_proxy_header(std::string_view bytes) {
  if (bytes.empty()) return need_more();
  if (may_start(bytes, kV2Signature)) return bytes.size() < 12 ? need_more() : parse_v2(bytes);
  if (may_start(bytes, kV1Prefix)) return bytes.size() < 6 ? need_more() : parse_v1(bytes);
  return invalid();
}

}  // namespace authd
