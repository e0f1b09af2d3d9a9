// HTTPS for the tests of interface.md 13.3: throw-away certificates made
// with the openssl command in a test's directory (no key is ever
// committed), and a client on OpenSSL that can offer old protocol
// versions, send a PROXY header in clear first, and say which certificate
// the server presented.
#pragma once

#include <memory>
#include <string>

#include "harness.hpp"

namespace authd::test {

// PEM files of a self-signed P-256 certificate for 127.0.0.1 whose subject
// is CN=`common_name`.
struct TestCertificate {
  std::string cert;
  std::string key;
};
TestCertificate make_certificate(const std::string& directory, const std::string& common_name);

struct TlsOptions {
  // OpenSSL's TLS1_VERSION .. TLS1_3_VERSION; 0: no bound. Below 1.2 the
  // client also drops its own security level, so that only the server
  // can be the one that refuses.
  int min_version = 0;
  int max_version = 0;
  // Bytes sent in clear before the handshake (a PROXY header), in the
  // same TCP segment as the start of the ClientHello.
  std::string prefix;
  // The client's own address (any of 127.0.0.0/8): several clients
  // without a network, as HttpConnection's.
  std::string source_address;
};

// One HTTPS connection (keep-alive). The constructor throws
// std::runtime_error when the connection or the handshake fails.
class TlsConnection {
 public:
  explicit TlsConnection(unsigned short port, const TlsOptions& options = {});
  ~TlsConnection();
  TlsConnection(const TlsConnection&) = delete;
  TlsConnection& operator=(const TlsConnection&) = delete;

  // Throws when the server closed the connection or sent no HTTP.
  HttpResponse request(const std::string& method, const std::string& target,
                       const Headers& headers = {}, const std::string& body = "");
  std::string peer_common_name() const;  // the certificate the server presented
  std::string protocol() const;          // "TLSv1.2", "TLSv1.3"

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// Whether a handshake with these options succeeds; its error otherwise.
bool handshake_succeeds(unsigned short port, const TlsOptions& options, std::string* error);

}  // namespace authd::test
