#include "http/tls.hpp"

#include <openssl/bio.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <sodium.h>

#include <cerrno>
#include <ctime>
#include <fstream>
#include <iterator>
#include <stdexcept>
#include <system_error>
#include <utility>

namespace authd {
namespace {

namespace ssl = boost::asio::ssl;

// Mozilla's "intermediate" configuration (version 5.7): TLS 1.2 with
// forward-secret AEAD suites only, and TLS 1.3's three suites. The client's
// order wins: every suite here is strong, and a phone without AES hardware
// rightly prefers ChaCha20 (docs/design/decisions/http-tls-bodies.md#tls).
constexpr const char* kTls12Ciphers =
    "ECDHE-ECDSA-AES128-GCM-SHA256:ECDHE-RSA-AES128-GCM-SHA256:"
    "ECDHE-ECDSA-AES256-GCM-SHA384:ECDHE-RSA-AES256-GCM-SHA384:"
    "ECDHE-ECDSA-CHACHA20-POLY1305:ECDHE-RSA-CHACHA20-POLY1305:"
    "DHE-RSA-AES128-GCM-SHA256:DHE-RSA-AES256-GCM-SHA384:DHE-RSA-CHACHA20-POLY1305";
constexpr const char* kTls13Suites =
    "TLS_AES_128_GCM_SHA256:TLS_AES_256_GCM_SHA384:TLS_CHACHA20_POLY1305_SHA256";
constexpr const char* kGroups = "X25519:prime256v1:secp384r1";

// The whole file, or an error naming it and the system's reason (a missing
// file, a permission refused).
std::string read_whole_file(const std::string& path, std::string_view what) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    throw std::runtime_error("cannot read the " + std::string(what) + " " + path + ": " +
                             std::generic_category().message(errno));
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// OpenSSL's reason for the last failure, and its error queue emptied: the
// queue is per thread, and this one also serves connections.
std::string openssl_reason(const boost::system::error_code& ec) {
  unsigned long code = ERR_peek_last_error();
  const char* text = code != 0 ? ERR_reason_error_string(code) : nullptr;
  std::string reason = text != nullptr ? text : ec.message();
  ERR_clear_error();
  return reason;
}

void fail_unless(bool ok, const std::string& what, const boost::system::error_code& ec = {}) {
  if (!ok) throw std::runtime_error(what + ": " + openssl_reason(ec));
}

void apply_protocol_settings(TlsContext& context) {
  SSL_CTX* ctx = context.native_handle();
  context.set_options(ssl::context::default_workarounds | ssl::context::no_compression);
  // Client-initiated renegotiation costs the server a handshake per request
  // of a hostile client, and HTTP/1.1 has no use for it.
  SSL_CTX_set_options(ctx, SSL_OP_NO_RENEGOTIATION);
  fail_unless(SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION) == 1, "TLS 1.2 minimum");
  fail_unless(SSL_CTX_set_cipher_list(ctx, kTls12Ciphers) == 1, "TLS 1.2 ciphers");
  fail_unless(SSL_CTX_set_ciphersuites(ctx, kTls13Suites) == 1, "TLS 1.3 cipher suites");
  fail_unless(SSL_CTX_set1_groups_list(ctx, kGroups) == 1, "key exchange groups");
  // The DHE suites use the RFC 7919 group that fits the key's size.
  SSL_CTX_set_dh_auto(ctx, 1);
}

}  // namespace

std::shared_ptr<TlsContext> make_server_context(const TlsFiles& files) {
  auto context = std::make_shared<TlsContext>(ssl::context::tls_server);
  apply_protocol_settings(*context);
  // An encrypted key fails to load instead of OpenSSL asking for its
  // passphrase on the terminal.
  context->set_password_callback([](std::size_t, ssl::context::password_purpose) { return ""; });

  boost::system::error_code ec;
  std::string chain = read_whole_file(files.certificate, "certificate file");
  context->use_certificate_chain(boost::asio::buffer(chain), ec);
  fail_unless(!ec, "no certificate in " + files.certificate, ec);

  std::string key = read_whole_file(files.key, "key file");
  context->use_private_key(boost::asio::buffer(key), ssl::context::pem, ec);
  sodium_memzero(key.data(), key.size());
  fail_unless(!ec, "no usable private key in " + files.key, ec);
  fail_unless(
      SSL_CTX_check_private_key(context->native_handle()) == 1,
      "the key in " + files.key + " does not match the certificate in " + files.certificate);
  return context;
}

TlsCertificateInfo certificate_info(TlsContext& context) {
  TlsCertificateInfo info;
  X509* certificate = SSL_CTX_get0_certificate(context.native_handle());
  if (certificate == nullptr) return info;
  std::unique_ptr<BIO, decltype(&BIO_free)> text(BIO_new(BIO_s_mem()), &BIO_free);
  if (text &&
      X509_NAME_print_ex(text.get(), X509_get_subject_name(certificate), 0, XN_FLAG_RFC2253) >= 0) {
    char* data = nullptr;
    long size = BIO_get_mem_data(text.get(), &data);
    if (size > 0) info.subject.assign(data, static_cast<std::size_t>(size));
  }
  std::tm expiry{};
  const ASN1_TIME* not_after = X509_get0_notAfter(certificate);
  if (ASN1_TIME_to_tm(not_after, &expiry) == 1) {
    char buffer[32];
    std::strftime(buffer, sizeof buffer, "%Y-%m-%dT%H:%M:%SZ", &expiry);
    info.not_after = buffer;
  }
  info.expired = X509_cmp_current_time(not_after) < 0;
  ERR_clear_error();
  return info;
}

TlsContexts::TlsContexts(TlsFiles files)
    : files_(std::move(files)), current_(make_server_context(files_)) {}

std::string TlsContexts::reload() {
  try {
    std::shared_ptr<TlsContext> loaded = make_server_context(files_);
    std::lock_guard lock(mutex_);
    current_.swap(loaded);
    return {};
  } catch (const std::exception& e) {
    return e.what();
  }
}

}  // namespace authd
