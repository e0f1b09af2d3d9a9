// HTTPS on both listeners (interface.md 13.3): the server's TLS context,
// built from the certificate and key files, and the holder that a reload
// (SIGHUP, cli/serve.cpp) replaces whole. Each new connection takes the
// context current at its accept and keeps it for its life, so a reload
// neither drops nor refuses a connection.
#pragma once

#include <memory>
#include <mutex>
#include <string>
#include <string_view>

#include <boost/asio/ssl/context.hpp>

namespace authd {

// interface.md 13.3: browsers that saw one HTTPS answer refuse plain HTTP
// to this host for two years (docs/design/decisions/http-tls-bodies.md#tls).
inline constexpr std::string_view kStrictTransportSecurity = "max-age=63072000";

struct TlsFiles {
  std::string certificate;  // PEM: the certificate, then its chain
  std::string key;          // PEM: the private key, unencrypted
};

// What a loaded certificate says about itself, for the log.
struct TlsCertificateInfo {
  std::string subject;
  std::string not_after;  // "2026-11-21T09:30:00Z"
  bool expired = false;
};

using TlsContext = boost::asio::ssl::context;

// A server context: TLS 1.2 or later, Mozilla's "intermediate" ciphers,
// no renegotiation, and the files' chain and key, which must match.
// Throws std::runtime_error naming the file and the reason, never what the
// file holds.
std::shared_ptr<TlsContext> make_server_context(const TlsFiles& files);

// The subject and expiry of the context's certificate.
TlsCertificateInfo certificate_info(TlsContext& context);

class TlsContexts {
 public:
  // Loads the files now; throws as make_server_context does.
  explicit TlsContexts(TlsFiles files);

  // The context for a new connection. Thread-safe.
  std::shared_ptr<TlsContext> current() const {
    std::lock_guard lock(mutex_);
    return current_;
  }

  // Reads the files again; the new context serves the connections accepted
  // from now on. On failure the current context stays and the reason is
  // returned; empty on success. Thread-safe.
  std::string reload();

  const TlsFiles& files() const { return files_; }

 private:
  TlsFiles files_;
  // Held only to copy or swap the pointer: once per new connection, and
  // never while a file is read.
  mutable std::mutex mutex_;
  std::shared_ptr<TlsContext> current_;
};

}  // namespace authd
