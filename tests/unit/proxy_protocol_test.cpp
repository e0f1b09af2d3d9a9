// http/proxy_protocol: the PROXY protocol header of interface.md 13.2, in
// versions 1 and 2, byte by byte. Behind a real HAProxy:
// tests/integration/proxy_protocol_test.cpp.
#include <gtest/gtest.h>

#include <string>

#include "http/proxy_protocol.hpp"

namespace authd {
namespace {

using Status = ProxyHeader::Status;

const std::string kSignature("\r\n\r\n\0\r\nQUIT\n", 12);

std::string v2(unsigned char command, unsigned char family, const std::string& payload) {
  std::string header = kSignature;
  header += static_cast<char>(0x20 | command);
  header += static_cast<char>(family);
  header += static_cast<char>(payload.size() >> 8);
  header += static_cast<char>(payload.size() & 0xFF);
  return header + payload;
}

std::string bytes(std::initializer_list<int> values) {
  std::string out;
  for (int v : values) out += static_cast<char>(v);
  return out;
}

TEST(ProxyProtocol, Interface_13_2_Version1) {
  std::string header = "PROXY TCP4 203.0.113.7 10.0.0.1 51234 8080\r\n";
  ProxyHeader parsed = parse_proxy_header(header + "GET / HTTP/1.1\r\n");
  EXPECT_EQ(parsed.status, Status::complete);
  EXPECT_EQ(parsed.length, header.size());
  EXPECT_EQ(parsed.source, "203.0.113.7");
  // Every prefix asks for more.
  for (std::size_t n = 0; n < header.size(); ++n)
    EXPECT_EQ(parse_proxy_header(header.substr(0, n)).status, Status::need_more) << n;

  ProxyHeader v6 = parse_proxy_header("PROXY TCP6 2001:db8::7 2001:db8::1 1 2\r\n");
  EXPECT_EQ(v6.status, Status::complete);
  EXPECT_EQ(v6.source, "2001:db8::7");
  ProxyHeader unknown = parse_proxy_header("PROXY UNKNOWN ffff::1 ffff::2 1 2\r\n");
  EXPECT_EQ(unknown.status, Status::complete);
  EXPECT_EQ(unknown.source, std::nullopt);
}

TEST(ProxyProtocol, Interface_13_2_MalformedVersion1IsInvalid) {
  for (const char* header :
       {"GET / HTTP/1.1\r\n", "PROXY TCP4 203.0.113.7 10.0.0.1 1\r\n",
        "PROXY TCP4 2001:db8::7 10.0.0.1 1 2\r\n", "PROXY TCP6 203.0.113.7 2001:db8::1 1 2\r\n",
        "PROXY TCP4 203.0.113.7 10.0.0.1 70000 2\r\n", "PROXY TCP4 203.0.113.7 10.0.0.1 01 2\r\n",
        "PROXY TCP4  203.0.113.7 10.0.0.1 1 2\r\n", "PROXY UDP4 203.0.113.7 10.0.0.1 1 2\r\n",
        "proxy TCP4"})
    EXPECT_EQ(parse_proxy_header(header).status, Status::invalid) << header;
  // No CRLF within 107 bytes.
  EXPECT_EQ(parse_proxy_header("PROXY TCP4 " + std::string(120, '1')).status, Status::invalid);
}

TEST(ProxyProtocol, Interface_13_2_Version2) {
  std::string v4 = v2(1, 0x11, bytes({203, 0, 113, 7, 10, 0, 0, 1, 0xC8, 0x22, 0x1F, 0x90}));
  ProxyHeader parsed = parse_proxy_header(v4 + "GET");
  EXPECT_EQ(parsed.status, Status::complete);
  EXPECT_EQ(parsed.length, v4.size());
  EXPECT_EQ(parsed.source, "203.0.113.7");
  for (std::size_t n = 0; n < v4.size(); ++n)
    EXPECT_EQ(parse_proxy_header(v4.substr(0, n)).status, Status::need_more) << n;

  std::string six(36, '\0');
  six[0] = 0x20, six[1] = 0x01, six[2] = 0x0d, six[3] = static_cast<char>(0xb8), six[15] = 7;
  EXPECT_EQ(parse_proxy_header(v2(1, 0x21, six)).source, "2001:db8::7");
  std::string mapped(36, '\0');
  mapped[10] = mapped[11] = static_cast<char>(0xFF);
  mapped[12] = static_cast<char>(198), mapped[13] = 51, mapped[14] = 100, mapped[15] = 9;
  EXPECT_EQ(parse_proxy_header(v2(1, 0x21, mapped)).source, "198.51.100.9");

  // TLVs after the addresses are skipped.
  std::string with_tlv =
      v2(1, 0x11, bytes({203, 0, 113, 7, 10, 0, 0, 1, 0, 1, 0, 2, 0x04, 0x00, 0x01, 'x'}));
  EXPECT_EQ(parse_proxy_header(with_tlv).length, with_tlv.size());
  // LOCAL (a health check) and other families: the peer is the client.
  ProxyHeader local = parse_proxy_header(v2(0, 0x00, ""));
  EXPECT_EQ(local.status, Status::complete);
  EXPECT_EQ(local.source, std::nullopt);
  EXPECT_EQ(parse_proxy_header(v2(1, 0x31, std::string(216, 'a'))).source, std::nullopt);
}

TEST(ProxyProtocol, Interface_13_2_MalformedVersion2IsInvalid) {
  std::string good = v2(1, 0x11, std::string(12, '\1'));
  std::string bad_version = good;
  bad_version[12] = 0x31;
  EXPECT_EQ(parse_proxy_header(bad_version).status, Status::invalid);
  std::string bad_command = good;
  bad_command[12] = 0x22;
  EXPECT_EQ(parse_proxy_header(bad_command).status, Status::invalid);
  EXPECT_EQ(parse_proxy_header(v2(1, 0x11, std::string(8, '\1'))).status, Status::invalid);
  EXPECT_EQ(parse_proxy_header(v2(1, 0x11, std::string(kMaxProxyHeader, '\1'))).status,
            Status::invalid);
  EXPECT_EQ(parse_proxy_header(kSignature.substr(0, 5) + "x").status, Status::invalid);
}

}  // namespace
}  // namespace authd
