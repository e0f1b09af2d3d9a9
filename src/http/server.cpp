#include "http/server.hpp"

#include <sodium.h>

#include <array>
#include <atomic>
#include <chrono>
#include <mutex>
#include <utility>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/beast/core.hpp>

#include "core/client_network.hpp"
#include "core/log.hpp"
#include "http/client_address.hpp"
#include "http/exchange.hpp"
#include "http/proxy_protocol.hpp"
#include "http/tls.hpp"

namespace authd {

namespace asio = boost::asio;
namespace beast = boost::beast;
using tcp = asio::ip::tcp;
using boost::system::error_code;

namespace {

// The first read of each request (see serve()).
constexpr std::size_t kFirstRead = 1024;

}  // namespace

// Shared by the listener and every connection; connections hold it alive.
struct Server::State : std::enable_shared_from_this<Server::State> {
  // A live connection. Only its own thread touches its stream and its held
  // answer's timer; others ask it to close through close_if_idle() and
  // drain().
  struct Connection : ConnectionRegistry::Tracked, std::enable_shared_from_this<Connection> {
    Connection(tcp::socket socket, std::string address)
        : Tracked(client_network(address)), stream(std::move(socket)), peer(std::move(address)) {}
    HttpStream stream;
    std::string peer;     // the TCP peer's address
    bool waiting = true;  // its own thread's view: waiting for a request's first byte
    asio::steady_timer* held_answer = nullptr;  // a busy 503's wait (http/exchange.cpp)

    // Waiting for a request's first byte, or serving one: both its own
    // thread's view (`waiting`) and the registry's (idle(), read by others).
    void set_waiting(bool now_waiting) {
      waiting = now_waiting;
      set_idle(now_waiting);
    }

    void close_if_idle() override { close_on_own_thread(false); }
    // As close_if_idle(), and a held answer goes now instead of at the end
    // of its wait.
    void drain() override { close_on_own_thread(true); }

    void close_on_own_thread(bool end_held_answer) {
      asio::post(stream.get_executor(), [self = shared_from_this(), end_held_answer] {
        error_code ignored;
        if (self->waiting) self->stream.tcp().socket().cancel(ignored);
        if (end_held_answer && self->held_answer != nullptr) self->held_answer->cancel();
      });
    }
  };

  State(IoThreads& t, HttpSettings s, ApiContext& a)
      : threads(t),
        io(t.main()),
        settings(std::move(s)),
        api(a),
        acceptor(io),
        drain_timer(io),
        registry(settings.connection_limits) {}

  IoThreads& threads;
  asio::io_context& io;  // the main thread's: the acceptor and the drain timer
  HttpSettings settings;
  ApiContext& api;
  tcp::acceptor acceptor;  // on the main thread: the accept loop and drain() share it
  asio::steady_timer drain_timer;
  std::atomic<bool> draining{false};
  std::atomic<std::size_t> dropped{0};  // connections cut by the drain time-out
  std::mutex mutex;  // orders drain() and forget(): the last one out stops the drain timer
  ConnectionRegistry registry;

  asio::awaitable<void> accept_loop();
  bool admit(const std::shared_ptr<Connection>& connection);
  asio::awaitable<void> serve(std::shared_ptr<Connection> connection);
  void start_connection(HttpStream& stream, ReadBuffer& buffer);
  bool take_proxy_client(Connection& connection, std::optional<std::string> client);
  void start_wait(ReadBuffer& buffer, HttpStream& stream, bool first_request);
  void end_connection(HttpStream& stream);
  void drain();
  void forget(const std::shared_ptr<Connection>& connection);

  // Calls forget() when a connection's coroutine ends, however it ends.
  struct ForgetOnExit {
    State& state;
    std::shared_ptr<Connection>& connection;
    ~ForgetOnExit() { state.forget(connection); }
  };
};

namespace {

// Lingering close (RFC 9112 9.6): the client may still be sending the
// request we refused (a 413 body, a huge header). Closing a socket with
// unread data makes the kernel answer with a reset, which can destroy our
// response before the client reads it. So read and discard what still
// comes, bounded in time and in size, until the client closes. A coroutine
// of its own, so that its buffer is in no connection's frame but the few
// that linger.
asio::awaitable<void> discard_until_closed(beast::tcp_stream& stream, Duration timeout) {
  static constexpr std::size_t kMaxDiscard = std::size_t{1024} * 1024;
  std::array<char, 4096> sink;
  std::size_t discarded = 0;
  error_code ec;
  stream.expires_after(timeout);
  while (discarded < kMaxDiscard) {
    std::size_t n = co_await stream.async_read_some(asio::buffer(sink),
                                                    asio::redirect_error(asio::use_awaitable, ec));
    if (ec) break;
    discarded += n;
  }
  sodium_memzero(sink.data(), sink.size());  // it may have held a password
}

// interface.md 13.2: the PROXY header that starts a connection from a
// trusted proxy, read within the header time-out that runs from the accept
// (a balancer sends it at once). The client it names, or the peer for a header that names none
// (a health check); nothing when the header is missing, malformed or late:
// the connection is then closed unanswered. Bytes after the header are the
// first request's, and stay in `buffer`.
asio::awaitable<std::optional<std::string>> read_proxy_header(beast::tcp_stream& stream,
                                                              ReadBuffer& buffer,
                                                              const std::string& peer) {
  error_code ec;
  while (true) {
    auto data = buffer.data();
    ProxyHeader header =
        parse_proxy_header(std::string_view(static_cast<const char*>(data.data()), data.size()));
    if (header.status == ProxyHeader::Status::invalid) co_return std::nullopt;
    if (header.status == ProxyHeader::Status::complete) {
      buffer.consume(header.length);
      co_return header.source.value_or(peer);
    }
    std::size_t n = co_await stream.async_read_some(buffer.prepare(512),
                                                    asio::redirect_error(asio::use_awaitable, ec));
    if (ec) co_return std::nullopt;
    buffer.commit(n);
  }
}

// interface.md 13.3: the TLS handshake, before the first request and after
// any PROXY header (which a balancer sends in clear), within the header
// time-out that runs from the accept. Bytes read with the PROXY header
// beyond it are the start of the ClientHello: they go to the handshake.
// The client can send nothing else before our answer to it, so the
// handshake takes them all. False when it failed (plain HTTP, an old
// protocol version, a time-out): the connection is closed unanswered.
asio::awaitable<bool> tls_handshake(HttpStream& stream, TlsContexts& tls, ReadBuffer& buffer,
                                    const std::string& peer) {
  HttpStream::TlsLayer& layer = stream.start_tls(tls.current());
  error_code ec;
  co_await layer.async_handshake(asio::ssl::stream_base::server, buffer.data(),
                                 asio::redirect_error(asio::use_awaitable, ec));
  buffer.consume(buffer.size());
  if (ec && log::debug_enabled())
    log::debug("tls_handshake_failed", {{"peer", peer}, {"reason", ec.message()}});
  co_return !ec;
}

}  // namespace

void Server::State::forget(const std::shared_ptr<Connection>& connection) {
  std::lock_guard lock(mutex);
  if (registry.forget(connection) && draining) drain_timer.cancel();
}

// Counts a new connection in, or closes it at once past a cap
// (http/connection_registry.hpp).
bool Server::State::admit(const std::shared_ptr<Connection>& connection) {
  // A trusted proxy's connections carry many clients: only the total caps them.
  auto admission =
      registry.admit(connection, is_trusted_proxy(connection->peer, settings.trusted_proxies));
  if (admission == ConnectionRegistry::Admission::admitted) return true;
  log::debug("connection_refused",
             {{"client", connection->peer},
              {"reason", admission == ConnectionRegistry::Admission::refused_total
                             ? "--max-connections"
                             : "--max-connections-per-client"}});
  error_code ignored;
  connection->stream.tcp().socket().close(ignored);
  return false;
}

void Server::State::start_connection(HttpStream& stream, ReadBuffer& buffer) {
  // Everything a client can make us hold of its request is in this buffer,
  // the parser's header (header_limit) or the body (max_body): capping the
  // buffer bounds every part of the framing Beast keeps until it is whole,
  // such as a chunk-size line, its extensions or the trailer fields
  // (docs/design/threat-model/denial-of-service.md#memory-per-connection).
  buffer.max_size(max_buffered(settings));
  // A new connection's header deadline runs from the accept: the PROXY
  // header, the TLS handshake and the first request's header all count
  // against it, so that a client cannot stretch it by sending each slowly.
  stream.expires_after(settings.header_timeout);
}

// interface.md 13.2: from here on the peer is the client the trusted
// proxy names (the request log, throttling and 13.1 all see that one).
// False when there is none: the connection is then closed unanswered.
bool Server::State::take_proxy_client(Connection& connection, std::optional<std::string> client) {
  if (!client) {
    log::debug("proxy_header_refused", {{"peer", connection.peer}});
    return false;
  }
  connection.peer = std::move(*client);
  return true;
}

// Before waiting for the first byte of a request: the idle time-out between
// keep-alive requests; a new connection's header deadline runs already.
void Server::State::start_wait(ReadBuffer& buffer, HttpStream& stream, bool first_request) {
  buffer.shrink_to_fit();  // wipes what the last request left behind
  if (!first_request) stream.expires_after(settings.idle_timeout);
}

// Over TLS, no close_notify: every response is delimited by its
// Content-Length, and waiting for the client's close_notify would let an
// idle client hold the connection
// (docs/design/decisions/http-tls-bodies.md#tls).
void Server::State::end_connection(HttpStream& stream) {
  error_code ignored;
  stream.tcp().socket().shutdown(tcp::socket::shutdown_send, ignored);
}

asio::awaitable<void> Server::State::serve(std::shared_ptr<Connection> connection) {
  auto self = shared_from_this();  // keeps the state alive while we run
  error_code ec;
  HttpStream& stream = connection->stream;
  // Leaves the registry on every path out, exceptions included, so that a
  // drain never waits for a connection that is gone.
  ForgetOnExit forget_on_exit{*this, connection};
  ReadBuffer buffer;
  start_connection(stream, buffer);
  bool first_request = true;
  // Set when we answer before the whole request was read: see the
  // lingering close below.
  bool request_unread = false;

  // interface.md 13.2 and 13.3: the PROXY header, then the TLS handshake.
  bool open = true;
  if (settings.proxy_protocol) {
    std::optional<std::string> client;
    if (is_trusted_proxy(connection->peer, settings.trusted_proxies)) {
      std::optional<std::string> named =
          co_await read_proxy_header(stream.tcp(), buffer, connection->peer);
      client = std::move(named);
    }
    open = take_proxy_client(*connection, std::move(client));
  }
  if (open && settings.tls) {
    bool handshaken = co_await tls_handshake(stream, *settings.tls, buffer, connection->peer);
    open = handshaken;
  }

  while (open && !draining) {
    // 1. Wait for the first byte of the next request (idle time-out between
    //    keep-alive requests), then give the whole header its own deadline;
    //    a new connection's runs already (above).
    const bool header_deadline_set = first_request;
    if (buffer.size() == 0) {
      start_wait(buffer, stream, first_request);
      // A small first read: an idle keep-alive connection holds this buffer
      // for as long as it waits, and most requests fit in it; a longer one
      // is read on by serve_request.
      std::size_t n = co_await stream.async_read_some(
          buffer.prepare(kFirstRead), asio::redirect_error(asio::use_awaitable, ec));
      if (ec) break;
      buffer.commit(n);
    }
    connection->set_waiting(false);
    first_request = false;
    // 2.: the request itself (http/exchange.hpp).
    After after = co_await serve_request(stream, connection->peer, buffer, header_deadline_set,
                                         {settings, api, draining, connection->held_answer});
    if (after == After::close_lingering) request_unread = true;
    if (after != After::next_request) break;
    connection->set_waiting(true);
  }

  end_connection(stream);
  if (request_unread) co_await discard_until_closed(stream.tcp(), settings.header_timeout);
  stream.tcp().close();
}

asio::awaitable<void> Server::State::accept_loop() {
  auto self = shared_from_this();
  while (!draining) {
    error_code ec;
    asio::io_context& home = threads.next();  // the connection's thread
    tcp::socket socket =
        co_await acceptor.async_accept(home, asio::redirect_error(asio::use_awaitable, ec));
    if (ec == asio::error::operation_aborted || draining) break;
    if (ec) {
      // Typically out of file descriptors: back off instead of spinning.
      log::warn("accept_failed", {{"error", ec.message()}});
      asio::steady_timer pause(io, std::chrono::milliseconds(100));
      co_await pause.async_wait(asio::redirect_error(asio::use_awaitable, ec));
      continue;
    }
    std::string address = socket.remote_endpoint(ec).address().to_string();
    if (ec) continue;  // gone already
    auto connection = std::make_shared<Connection>(std::move(socket), std::move(address));
    if (!admit(connection)) continue;
    auto executor = connection->stream.get_executor();
    asio::co_spawn(executor, serve(std::move(connection)), [](const std::exception_ptr& error) {
      if (!error) return;
      try {
        std::rethrow_exception(error);
      } catch (const std::exception& e) {
        log::error("connection_failed", {{"error", e.what()}});
      } catch (...) {
        // Treated like the above, wherever the coroutine was resumed from:
        // on its own loop, this would escape io_context::run(); inside a
        // batch of loop reads (run_batch, store/batching/batch_job.hpp), be swallowed.
        log::error("connection_failed", {{"error", "an exception of unknown type"}});
      }
    });
  }
}

void Server::State::drain() {
  if (draining.exchange(true)) return;
  asio::post(acceptor.get_executor(), [self = shared_from_this()] {
    error_code ignored;
    self->acceptor.close(ignored);
  });
  threads.release();
  std::lock_guard lock(mutex);
  if (registry.open() == 0) return;
  // Idle connections are closed now; busy ones finish their request and
  // then close, a held 503 at once. Past the deadline, whatever is left is
  // closed too.
  registry.for_each([](const auto& connection) { connection->drain(); });
  drain_timer.expires_after(settings.drain_timeout);
  drain_timer.async_wait([self = shared_from_this()](const error_code& ec) {
    if (ec) return;  // cancelled: every connection finished in time
    self->dropped = self->registry.open();
    log::warn("drain_timeout", {{"dropped_connections", self->dropped.load()}});
    self->threads.stop();
  });
}

Server::Server(IoThreads& threads, HttpSettings settings, ApiContext& api)
    : state_(std::make_shared<State>(threads, std::move(settings), api)) {}

Server::~Server() = default;

tcp::endpoint Server::listen() {
  auto& s = *state_;
  tcp::endpoint endpoint(asio::ip::make_address(s.settings.host), s.settings.port);
  s.acceptor.open(endpoint.protocol());
  s.acceptor.set_option(asio::socket_base::reuse_address(true));
  s.acceptor.bind(endpoint);
  s.acceptor.listen(asio::socket_base::max_listen_connections);
  asio::co_spawn(s.acceptor.get_executor(), s.accept_loop(), asio::detached);
  return s.acceptor.local_endpoint();
}

void Server::drain() { state_->drain(); }

const ConnectionRegistry& Server::connections() const { return state_->registry; }

std::size_t Server::dropped_by_drain() const { return state_->dropped.load(); }

}  // namespace authd
