#include "tls_client.hpp"

#include <netinet/in.h>
#include <netinet/tcp.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <sys/socket.h>

#include <stdexcept>

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http.hpp>

#include "http_message.hpp"
#include "run_authd.hpp"

namespace authd::test {

namespace asio = boost::asio;
namespace ssl = asio::ssl;
namespace http = boost::beast::http;
using tcp = asio::ip::tcp;

namespace {

ssl::context client_context(const TlsOptions& options) {
  ssl::context context(ssl::context::tls_client);
  SSL_CTX* ctx = context.native_handle();
  if (options.min_version != 0) SSL_CTX_set_min_proto_version(ctx, options.min_version);
  if (options.max_version != 0) SSL_CTX_set_max_proto_version(ctx, options.max_version);
  // OpenSSL 3 keeps TLS 1.0 and 1.1 only at security level 0: without it
  // the client would refuse them itself, and the test would prove nothing
  // about the server.
  if (options.max_version != 0 && options.max_version < TLS1_2_VERSION) {
    SSL_CTX_set_security_level(ctx, 0);
    SSL_CTX_set_cipher_list(ctx, "DEFAULT:@SECLEVEL=0");
  }
  // The tests read the certificate's name themselves (peer_common_name).
  context.set_verify_mode(ssl::verify_none);
  return context;
}

// TCP_CORK holds what is written until the handshake's first write joins
// it; the kernel sends the lot within 200 ms.
void cork(tcp::socket& socket, bool on) {
  int value = on ? 1 : 0;
  ::setsockopt(socket.native_handle(), IPPROTO_TCP, TCP_CORK, &value, sizeof value);
}

}  // namespace

TestCertificate make_certificate(const std::string& directory, const std::string& common_name) {
  TestCertificate made{directory + "/" + common_name + ".crt",
                       directory + "/" + common_name + ".key"};
  CommandResult result = run_shell(
      "openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 2 "
      "-subj " +
      shell_quote("/CN=" + common_name) + " -addext subjectAltName=IP:127.0.0.1 -keyout " +
      shell_quote(made.key) + " -out " + shell_quote(made.cert) + " 2>&1");
  if (result.exit_code != 0) throw std::runtime_error("openssl req failed: " + result.output);
  return made;
}

struct TlsConnection::Impl {
  explicit Impl(const TlsOptions& options) : context(client_context(options)) {}
  asio::io_context io;
  ssl::context context;  // before the stream, whose SSL object copies its settings
  ssl::stream<tcp::socket> stream{io, context};
  boost::beast::flat_buffer buffer;
};

TlsConnection::TlsConnection(unsigned short port, const TlsOptions& options)
    : impl_(std::make_unique<Impl>(options)) {
  tcp::socket& socket = impl_->stream.next_layer();
  if (!options.source_address.empty()) {
    socket.open(tcp::v4());
    socket.bind(tcp::endpoint(asio::ip::make_address(options.source_address), 0));
  }
  socket.connect(tcp::endpoint(asio::ip::make_address("127.0.0.1"), port));
  if (!options.prefix.empty()) {
    cork(socket, true);
    asio::write(socket, asio::buffer(options.prefix));
  }
  boost::system::error_code ec;
  impl_->stream.handshake(ssl::stream_base::client, ec);
  if (!options.prefix.empty()) cork(socket, false);
  if (ec) throw std::runtime_error("TLS handshake failed: " + ec.message());
}

TlsConnection::~TlsConnection() = default;

HttpResponse TlsConnection::request(const std::string& method, const std::string& target,
                                    const Headers& headers, const std::string& body) {
  http::write(impl_->stream, make_request(method, target, headers, body));
  http::response_parser<http::string_body> parser;
  parser.body_limit(1 << 20);
  boost::system::error_code ec;
  http::read(impl_->stream, impl_->buffer, parser, ec);
  if (ec) throw std::runtime_error("no HTTPS response: " + ec.message());
  return convert(parser.get());
}

std::string TlsConnection::peer_common_name() const {
  X509* certificate = SSL_get1_peer_certificate(impl_->stream.native_handle());
  if (certificate == nullptr) return "";
  char name[256] = {};
  X509_NAME_get_text_by_NID(X509_get_subject_name(certificate), NID_commonName, name, sizeof name);
  X509_free(certificate);
  return name;
}

std::string TlsConnection::protocol() const {
  return SSL_get_version(impl_->stream.native_handle());
}

bool handshake_succeeds(unsigned short port, const TlsOptions& options, std::string* error) {
  try {
    TlsConnection connection(port, options);
    return true;
  } catch (const std::exception& e) {
    if (error != nullptr) *error = e.what();
    return false;
  }
}

}  // namespace authd::test
