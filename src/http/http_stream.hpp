// The byte stream of one connection: plain TCP, or TLS over it
// (interface.md 13.3). The HTTP code (http/exchange.cpp) reads and writes
// through it either way. Time-outs are the TCP stream's (Beast's
// tcp_stream), under the TLS layer, so they bound the handshake and every
// TLS record as they bound plain reads and writes.
#pragma once

#include <cstddef>
#include <memory>
#include <optional>
#include <utility>

#include <boost/asio/async_result.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl/stream.hpp>
#include <boost/beast/core/tcp_stream.hpp>

#include "core/duration.hpp"
#include "http/tls.hpp"

namespace authd {

class HttpStream {
 public:
  using executor_type = boost::beast::tcp_stream::executor_type;
  using TlsLayer = boost::asio::ssl::stream<boost::beast::tcp_stream&>;

  explicit HttpStream(boost::asio::ip::tcp::socket socket) : tcp_(std::move(socket)) {}

  executor_type get_executor() noexcept { return tcp_.get_executor(); }
  // The TCP layer: its socket, and the raw bytes under TLS (a lingering
  // close discards them unread).
  boost::beast::tcp_stream& tcp() { return tcp_; }
  void expires_after(Duration timeout) { tcp_.expires_after(timeout); }

  // From now on bytes go through TLS with `context`, which the stream keeps
  // for its life (a reload replaces the listener's, not this one).
  TlsLayer& start_tls(std::shared_ptr<TlsContext> context) {
    context_ = std::move(context);
    return tls_.emplace(tcp_, *context_);
  }

  template <typename MutableBuffers, typename Token>
  auto async_read_some(const MutableBuffers& buffers, Token&& token) {
    return boost::asio::async_initiate<Token, void(boost::system::error_code, std::size_t)>(
        [this](auto handler, const MutableBuffers& to) {
          if (tls_)
            tls_->async_read_some(to, std::move(handler));
          else
            tcp_.async_read_some(to, std::move(handler));
        },
        token, buffers);
  }

  template <typename ConstBuffers, typename Token>
  auto async_write_some(const ConstBuffers& buffers, Token&& token) {
    return boost::asio::async_initiate<Token, void(boost::system::error_code, std::size_t)>(
        [this](auto handler, const ConstBuffers& from) {
          if (tls_)
            tls_->async_write_some(from, std::move(handler));
          else
            tcp_.async_write_some(from, std::move(handler));
        },
        token, buffers);
  }

 private:
  boost::beast::tcp_stream tcp_;
  std::shared_ptr<TlsContext> context_;  // declared before tls_: outlives it
  std::optional<TlsLayer> tls_;
};

}  // namespace authd
