// Shared helpers of the interface.md section 1 tests (http_contract_test.cpp
// and http_protocol_test.cpp): raw request building, the checks every error
// response must pass, and one server shared by the tests that need no special
// configuration.
#pragma once

#include <gtest/gtest.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <memory>
#include <set>
#include <string>

#include "harness.hpp"

namespace authd::test::http_contract {

inline const Headers kJson = {{"Content-Type", "application/json"}};

// A well-formed login for an account that does not exist.
inline std::string unknown_login() { return login_body("nobody@example.com", "whatever"); }

// The message of every error status (interface.md 1.3), exactly.
inline std::string expected_message(int status) {
  switch (status) {
    case 400:
      return "Bad Request";
    case 401:
      return "Unauthorized Error";
    case 403:
      return "Forbidden";
    case 404:
      return "Not Found";
    case 405:
      return "Method Not Allowed";
    case 413:
      return "Payload Too Large";
    case 414:
      return "URI Too Long";
    case 415:
      return "Unsupported Media Type";
    case 429:
      return "Too Many Requests";
    case 431:
      return "Request Header Fields Too Large";
    case 500:
      return "Internal Server Error";
    case 503:
      return "Service Unavailable";
    case 505:
      return "HTTP Version Not Supported";
    default:
      return "?";
  }
}

// 1.2 and 1.9: what every JSON response carries.
inline void expect_common_headers(const HttpResponse& res) {
  EXPECT_EQ(res.header_count("Content-Type"), 1u);
  EXPECT_EQ(res.header("Content-Type"), "application/json");
  EXPECT_EQ(res.header("Cache-Control"), "no-store");
  EXPECT_EQ(res.header_count("X-Request-Id"), 1u);
  EXPECT_FALSE(res.header("X-Request-Id").empty());
}

// 1.2, 1.3, 1.9: an error response with exactly {code, message} (a 400 may
// add a string "detail", nothing else may).
inline void expect_error(const HttpResponse& res, int status) {
  ASSERT_EQ(res.status, status) << res.body;
  expect_common_headers(res);
  nlohmann::json body;
  ASSERT_NO_THROW(body = res.json()) << res.body;
  ASSERT_TRUE(body.is_object()) << res.body;
  EXPECT_EQ(body["code"], status) << res.body;
  EXPECT_EQ(body["message"], expected_message(status)) << res.body;
  std::set<std::string> allowed = {"code", "message"};
  if (status == 400) {
    allowed.insert("detail");
    if (body.contains("detail")) {
      EXPECT_TRUE(body["detail"].is_string()) << res.body;
    }
  }
  for (const auto& [key, value] : body.items()) {
    EXPECT_TRUE(allowed.count(key)) << "unexpected member " << key << " in " << res.body;
  }
}

// A request as bytes. `headers` are sent as given, after Host (unless
// `host` is false); Content-Length is added when `body` is non-empty and no
// framing header was given.
inline std::string raw_request(const std::string& method, const std::string& target,
                               const Headers& headers = {}, const std::string& body = "",
                               const std::string& version = "HTTP/1.1", bool host = true) {
  std::string text = method + " " + target + " " + version + "\r\n";
  if (host) text += "Host: 127.0.0.1\r\n";
  bool framed = false;
  for (const auto& [name, value] : headers) {
    text += name + ": " + value + "\r\n";
    std::string lowered;
    for (char c : name) lowered += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (lowered == "content-length" || lowered == "transfer-encoding") framed = true;
  }
  if (!body.empty() && !framed) text += "Content-Length: " + std::to_string(body.size()) + "\r\n";
  return text + "\r\n" + body;
}

// `body` in the chunked transfer coding, in chunks of `chunk` bytes.
inline std::string chunked(const std::string& body, std::size_t chunk = 4096) {
  std::string out;
  static const char* hex = "0123456789abcdef";
  for (std::size_t at = 0; at < body.size(); at += chunk) {
    std::size_t n = std::min(chunk, body.size() - at);
    std::string size;
    for (std::size_t v = n; v > 0; v /= 16) size.insert(size.begin(), hex[v % 16]);
    out += size + "\r\n" + body.substr(at, n) + "\r\n";
  }
  return out + "0\r\n\r\n";
}

// Sends `bytes` on a fresh connection and reads one response.
inline HttpResponse exchange(unsigned short port, const std::string& bytes) {
  HttpConnection connection(port);
  connection.send_raw(bytes);
  return connection.read_response();
}

// Sends `bytes` on a fresh connection and returns every byte the server
// sends until it closes the connection (the last request should ask for
// Connection: close). For checks on the exact framing, which the harness's
// parser would hide. A 30 s receive time-out only guards against a hang.
inline std::string exchange_until_close(unsigned short port, const std::string& bytes) {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(port);
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  timeval guard{30, 0};
  ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &guard, sizeof guard);
  std::string received;
  if (::connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0 &&
      ::send(fd, bytes.data(), bytes.size(), MSG_NOSIGNAL) == static_cast<ssize_t>(bytes.size())) {
    char chunk[4096];
    for (ssize_t n; (n = ::recv(fd, chunk, sizeof chunk, 0)) > 0;) received.append(chunk, n);
  }
  ::close(fd);
  return received;
}

// A JSON document of exactly `size` bytes (an object padded with spaces).
inline std::string json_of_size(const std::string& object, std::size_t size) {
  std::string text = object;
  if (text.size() < size) text.insert(text.size() - 1, size - text.size(), ' ');
  return text;
}

inline const std::string kUserEmail = "http-contract@example.com";
inline const std::string kUserPassword = "correct horse battery staple";

// One server for the tests that need the default HTTP configuration. Cheap
// hashing; throttling limits raised so that the many deliberate failures of
// these tests never reach them (1.10's throttling rule has its own server).
inline AuthdProcess& shared_authd() {
  static std::unique_ptr<AuthdProcess> authd = [] {
    std::vector<std::string> args = fast_hashing();
    for (const char* flag :
         {"--login-email-limit", "--login-client-limit", "--forgot-client-limit"}) {
      args.push_back(flag);
      args.push_back("10000/1m");
    }
    auto process = std::make_unique<AuthdProcess>(args);
    process->add_user(kUserEmail, kUserPassword);
    return process;
  }();
  return *authd;
}

}  // namespace authd::test::http_contract
