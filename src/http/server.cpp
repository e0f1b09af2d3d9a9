#include "http/server.hpp"

#include <sodium.h>

#include <array>
#include <atomic>
#include <chrono>
#include <cmath>
#include <ctime>
#include <limits>
#include <mutex>
#include <optional>
#include <set>
#include <string_view>
#include <utility>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>

#include "api/errors.hpp"
#include "auth/throttle.hpp"
#include "core/log.hpp"
#include "core/wiping_allocator.hpp"
#include "http/client_address.hpp"
#include "http/cors.hpp"
#include "http/request_checks.hpp"
#include "http/request_id.hpp"
#include "http/response_wire.hpp"
#include "metrics/metrics.hpp"

namespace authd {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = asio::ip::tcp;
using boost::system::error_code;

namespace {

// The first read of each request (see serve()).
constexpr std::size_t kFirstRead = 1024;

// "Sat, 21 Nov 2026 09:30:00 GMT" (RFC 9110 IMF-fixdate), formatted once a
// second per thread.
const std::string& http_date() {
  thread_local std::time_t formatted_at = -1;
  thread_local std::string text;
  std::time_t now = std::time(nullptr);
  if (now != formatted_at) {
    std::tm tm{};
    gmtime_r(&now, &tm);
    char buffer[40];
    std::strftime(buffer, sizeof buffer, "%a, %d %b %Y %H:%M:%S GMT", &tm);
    text = buffer;
    formatted_at = now;
  }
  return text;
}

}  // namespace

// Shared by the listener and every connection; connections hold it alive.
struct Server::State : std::enable_shared_from_this<Server::State> {
  // A live connection. Only its own thread touches its stream; others ask
  // it to close through close_if_idle().
  struct Connection : ConnectionRegistry::Tracked, std::enable_shared_from_this<Connection> {
    Connection(tcp::socket socket, std::string address)
        : Tracked(client_network(address)), stream(std::move(socket)), peer(std::move(address)) {}
    beast::tcp_stream stream;
    std::string peer;     // the TCP peer's address
    bool waiting = true;  // its own thread's view: waiting for a request's first byte

    void close_if_idle() override {
      asio::post(stream.get_executor(), [self = shared_from_this()] {
        error_code ignored;
        if (self->waiting) self->stream.socket().cancel(ignored);
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

  // Beast's limit on the request line and header fields together: the
  // target's and the header section's limits, and room for the request
  // line's other parts.
  std::uint32_t parser_header_limit() const {
    return static_cast<std::uint32_t>(settings.max_target + settings.max_header_section + 1024);
  }
  // The most a connection's read buffer holds: a whole header section, and
  // a little more for reads that cross its end.
  std::size_t max_buffered() const { return parser_header_limit() + 8 * 1024; }

  // What a request leaves its connection to do next.
  enum class After { next_request, close, close_lingering };

  asio::awaitable<void> accept_loop();
  bool admit(const std::shared_ptr<Connection>& connection);
  asio::awaitable<void> serve(std::shared_ptr<Connection> connection);
  asio::awaitable<After> serve_request(Connection& connection, ReadBuffer& buffer,
                                       bool header_deadline_set);
  void drain();
  void forget(const std::shared_ptr<Connection>& connection);
};

namespace {

bool is_quiet_disconnect(const error_code& ec) {
  return ec == http::error::end_of_stream || ec == http::error::partial_message ||
         ec == beast::error::timeout || ec == asio::error::operation_aborted ||
         ec == asio::error::eof || ec == asio::error::connection_reset ||
         ec == asio::error::broken_pipe || ec == asio::error::bad_descriptor;
}

// Lingering close (RFC 9112 9.6): the client may still be sending the
// request we refused (a 413 body, a huge header). Closing a socket with
// unread data makes the kernel answer with a reset, which can destroy our
// response before the client reads it. So read and discard what still
// comes, bounded in time and in size, until the client closes. A coroutine
// of its own, so that its buffer is in no connection's frame but the few
// that linger.
asio::awaitable<void> discard_until_closed(beast::tcp_stream& stream, Duration timeout) {
  static constexpr std::size_t kMaxDiscard = 1024 * 1024;
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
  connection->stream.socket().close(ignored);
  return false;
}

// One request on a connection, from its first bytes (already in `buffer`)
// to its answer and log line. Its state (parser, response, handler) lives
// in this frame only while a request is handled, not in the connection's
// frame for as long as an idle keep-alive connection waits.
asio::awaitable<Server::State::After> Server::State::serve_request(Connection& connection,
                                                                   ReadBuffer& buffer,
                                                                   bool header_deadline_set) {
  beast::tcp_stream& stream = connection.stream;
  const std::string& peer = connection.peer;
  error_code ec;
  // Set when we answer before the whole request was read: see the
  // lingering close in serve().
  bool request_unread = false;
  auto started = std::chrono::steady_clock::now();

  Parser parser;
  const std::uint32_t header_limit = parser_header_limit();
  parser.header_limit(header_limit);
  // No body limit while the header is read: Beast would report a declared
  // Content-Length over the limit before the header checks below, and a
  // malformed request must win over 413 (interface.md 1.10). The real
  // limit is applied once the header has passed.
  parser.body_limit(std::numeric_limits<std::uint64_t>::max());
  if (!header_deadline_set) stream.expires_after(settings.header_timeout);
  // obs-fold: see HeaderPrescan. Past the parser's limit, Beast answers
  // 414 or 431 as before.
  std::optional<Rejection> rejection;
  HeaderPrescan prescan(header_limit);
  while (true) {
    auto data = buffer.data();
    std::string_view raw(static_cast<const char*>(data.data()), data.size());
    HeaderPrescan::Verdict verdict = prescan.scan(raw);
    if (verdict == HeaderPrescan::Verdict::folded)
      rejection = Rejection{400, "obsolete line folding"};
    if (verdict == HeaderPrescan::Verdict::bare_lf)
      rejection = Rejection{400, "bare LF in the request line"};
    if (verdict != HeaderPrescan::Verdict::need_more) break;
    if (raw.size() > header_limit) break;
    std::size_t room = std::min<std::size_t>(4096, buffer.max_size() - buffer.size());
    std::size_t n = co_await stream.async_read_some(buffer.prepare(room),
                                                    asio::redirect_error(asio::use_awaitable, ec));
    if (ec) break;
    buffer.commit(n);
  }
  if (ec) co_return After::close;  // time-out, or the client went away mid-header

  std::size_t header_bytes = 0;
  if (!rejection) {
    std::size_t read = co_await http::async_read_header(
        stream, buffer, parser, asio::redirect_error(asio::use_awaitable, ec));
    header_bytes = read;
  }
  if (rejection) {
    // refused on its raw bytes, above
  } else if (ec == http::error::header_limit) {
    rejection = Rejection{classify_oversized_header(parser, settings.max_target), "header limit"};
  } else if (ec && is_quiet_disconnect(ec)) {
    co_return After::close;
  } else if (ec == http::error::bad_version && has_unsupported_version(buffer)) {
    rejection = Rejection{505, "unsupported HTTP version"};
  } else if (ec) {
    rejection = Rejection{400, "malformed request"};
  } else {
    rejection = check_header(parser, header_bytes, settings);
  }
  // 413 for a declared length comes right after the header checks, before
  // any byte of the body is read (and before any 100 Continue).
  if (!rejection && parser.content_length().value_or(0) > settings.max_body) {
    rejection = Rejection{413, "declared body too large"};
  }

  // interface.md 13.1: behind a trusted proxy, the client it names. Not
  // for a refused request: its fields are not to be read.
  const std::string client =
      rejection || settings.trusted_proxies.empty()
          ? peer
          : choose_client_address(peer,
                                  {field_values(parser.get(), "X-Forwarded-For"),
                                   field_values(parser.get(), "Forwarded")},
                                  settings.trusted_proxies);

  // 2. The body, bounded in size (413 before any parsing) and in time.
  if (!rejection) {
    parser.body_limit(settings.max_body);  // bounds a chunked body as it arrives
    if (log::debug_enabled())
      log::debug("request_started",
                 {{"method", as_std_view(parser.get().method_string())}, {"client", client}});
    const auto& req = parser.get();
    // Only an HTTP/1.1 client may be sent 100 Continue (RFC 9110 10.1.1).
    if (req.version() == 11 &&
        equals_ignoring_case(as_std_view(req[http::field::expect]), "100-continue") &&
        !parser.is_done()) {
      static constexpr std::string_view kContinue = "HTTP/1.1 100 Continue\r\n\r\n";
      co_await asio::async_write(stream, asio::buffer(kContinue),
                                 asio::redirect_error(asio::use_awaitable, ec));
      if (ec) co_return After::close;
    }
    if (!parser.is_done()) {
      co_await http::async_read(stream, buffer, parser,
                                asio::redirect_error(asio::use_awaitable, ec));
    }
    if (ec == http::error::body_limit) {
      rejection = Rejection{413, "body too large"};
    } else if (ec == http::error::buffer_overflow) {
      // Framing that never ends (a chunk-size line, chunk extensions or
      // trailer fields past the read buffer): too large, like a body.
      rejection = Rejection{413, "chunked framing too large"};
    } else if (ec && is_quiet_disconnect(ec)) {
      co_return After::close;
    } else if (ec) {
      rejection = Rejection{400, "malformed body framing"};
    }
  }

  // 3. Route and handle, or answer the rejection.
  std::string request_id;
  ApiResponse response;
  bool keep_alive = false;
  std::string method(parser.get().method_string());
  unsigned version = parser.get().version() == 10 ? 10 : 11;
  auto origin = allowed_origin(settings.cors_origins, field_values(parser.get(), "Origin"));
  bool preflight = false;
  if (rejection) {
    request_id = choose_request_id(field_values(parser.get(), "X-Request-Id"));
    response = error_response(rejection->status);
    log::debug("request_rejected", {{"reason", rejection->reason}, {"request_id", request_id}});
  } else {
    auto& req = parser.get();
    request_id = choose_request_id(field_values(req, "X-Request-Id"));
    ApiRequest request;
    request.listener = settings.listener;
    request.method = method;
    request.path = route_path(as_std_view(req.target()), settings.base_path);
    request.content_types = field_values(req, http::field::content_type);
    request.authorization = field_values(req, http::field::authorization);
    request.body = std::string_view(req.body().data(), req.body().size());
    request.client_address = client;
    auto preflight_answer =
        answer_preflight({method, request.path, req.count("Access-Control-Request-Method") > 0},
                         origin, settings.cors_max_age);
    try {
      if (preflight_answer) {
        preflight = true;
        response = std::move(*preflight_answer);
      } else {
        ApiResponse dispatched = co_await dispatch(api, request);
        response = std::move(dispatched);
      }
    } catch (const std::exception& e) {
      log::error("handler_failed", {{"error", e.what()}, {"request_id", request_id}});
      response = error_response(500);
    }
    keep_alive = req.keep_alive() && !draining;
  }
  // A rejected request may have left part of itself (a body, the rest of
  // a header, a body Beast did not frame) unread on the socket.
  request_unread = rejection.has_value();
  add_cors_headers(response, !settings.cors_origins.empty(), origin, preflight);

  // 4. The response, with the headers every response carries
  // (http/response_wire.hpp). RFC 9110 9.3.2: the answer to HEAD has the
  // headers the answer to GET would have, but never a body; sending one
  // would make the client read it as the start of the next response.
  ResponseFrame frame{.version = version,
                      .keep_alive = keep_alive,
                      .head = method == "HEAD",
                      .date = http_date(),
                      .request_id = request_id};
  std::string wire = response_wire(response, frame);
  stream.expires_after(settings.header_timeout);
  co_await asio::async_write(stream, asio::buffer(wire),
                             asio::redirect_error(asio::use_awaitable, ec));
  if (response.holds_secret) wipe_sent_response(response, wire);

  auto elapsed = std::chrono::steady_clock::now() - started;
  auto latency = std::chrono::duration<double, std::milli>(elapsed);
  log::request({.method = method,
                .route = response.route,
                .status = response.status,
                .latency_ms = std::round(latency.count() * 1000) / 1000,
                .request_id = request_id,
                .client = client});
  if (api.metrics != nullptr)
    api.metrics->observe_request(response.route, response.status, elapsed);
  if (ec || !keep_alive) co_return request_unread ? After::close_lingering : After::close;
  co_return After::next_request;
}

asio::awaitable<void> Server::State::serve(std::shared_ptr<Connection> connection) {
  auto self = shared_from_this();  // keeps the state alive while we run
  error_code ec;
  beast::tcp_stream& stream = connection->stream;
  // Leaves the registry on every path out, exceptions included, so that a
  // drain never waits for a connection that is gone.
  struct Forget {
    State& state;
    std::shared_ptr<Connection>& connection;
    ~Forget() { state.forget(connection); }
  } forget_on_exit{*this, connection};
  // Everything a client can make us hold of its request is in this buffer,
  // the parser's header (header_limit) or the body (max_body): capping the
  // buffer bounds every part of the framing Beast keeps until it is whole,
  // such as a chunk-size line, its extensions or the trailer fields
  // (docs/security.md, "Memory per connection").
  ReadBuffer buffer;
  buffer.max_size(max_buffered());
  bool first_request = true;
  // Set when we answer before the whole request was read: see the
  // lingering close below.
  bool request_unread = false;

  while (!draining) {
    // 1. Wait for the first byte of the next request (idle time-out between
    //    keep-alive requests), then give the whole header its own deadline.
    //    A new connection's header deadline runs from the accept, so that
    //    a client cannot stretch it by waiting before its first byte.
    bool header_deadline_set = false;
    if (buffer.size() == 0) {
      buffer.shrink_to_fit();  // wipes what the last request left behind
      stream.expires_after(first_request ? settings.header_timeout : settings.idle_timeout);
      header_deadline_set = first_request;
      // A small first read: an idle keep-alive connection holds this buffer
      // for as long as it waits, and most requests fit in it; a longer one
      // is read on by serve_request.
      std::size_t n = co_await stream.async_read_some(
          buffer.prepare(kFirstRead), asio::redirect_error(asio::use_awaitable, ec));
      if (ec) break;
      buffer.commit(n);
    }
    connection->waiting = false;
    connection->set_idle(false);
    first_request = false;
    // 2. to 4.: the request itself.
    After after = co_await serve_request(*connection, buffer, header_deadline_set);
    if (after == After::close_lingering) request_unread = true;
    if (after != After::next_request) break;
    connection->waiting = true;
    connection->set_idle(true);
  }

  stream.socket().shutdown(tcp::socket::shutdown_send, ec);
  if (request_unread) co_await discard_until_closed(stream, settings.header_timeout);
  stream.close();
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
    asio::co_spawn(executor, serve(std::move(connection)), [](std::exception_ptr error) {
      if (!error) return;
      try {
        std::rethrow_exception(error);
      } catch (const std::exception& e) {
        log::error("connection_failed", {{"error", e.what()}});
      } catch (...) {
        // Treated like the above, wherever the coroutine was resumed from:
        // on its own loop, this would escape io_context::run(); inside a
        // batch of loop reads (TransactionBatcher::run_jobs), be swallowed.
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
  // then close. Past the deadline, whatever is left is closed too.
  registry.for_each([](const auto& connection) { connection->close_if_idle(); });
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
