#include "http/exchange.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <ctime>
#include <limits>
#include <optional>
#include <string_view>
#include <utility>

#include <boost/asio/redirect_error.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/http.hpp>

#include "api/credentials.hpp"
#include "api/errors.hpp"
#include "core/log.hpp"
#include "http/client_address.hpp"
#include "http/cors.hpp"
#include "http/request_id.hpp"
#include "http/response_wire.hpp"
#include "metrics/metrics.hpp"

namespace authd {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using boost::system::error_code;

namespace {

using Request = Parser::value_type;

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

// Errors that end a connection without an answer: the client went away or
// stopped sending in time, or the server is closing it.
bool is_quiet_disconnect(const error_code& ec) {
  return ec == http::error::end_of_stream || ec == http::error::partial_message ||
         ec == beast::error::timeout || ec == asio::error::operation_aborted ||
         ec == asio::error::eof || ec == asio::error::connection_reset ||
         ec == asio::error::broken_pipe || ec == asio::error::bad_descriptor;
}

// Where reading a request stopped: read on (no rejection), refused (the
// rejection is answered, then the connection closed), or gone (nothing to
// answer: a time-out, or the client went away).
struct Reading {
  bool gone;
  std::optional<Rejection> rejection;
};

Reading read_on() { return {false, std::nullopt}; }
Reading gone() { return {true, std::nullopt}; }
Reading refused(int status, std::string_view reason) { return {false, Rejection{status, reason}}; }

// What the connection sends and logs for a request besides the handler's
// answer.
struct Answer {
  ApiResponse response;
  std::string request_id;
  std::string method;
  unsigned version = 11;  // the request's: 10 or 11
  bool keep_alive = false;
};

// Beast consumes the header as it parses it, so obs-fold and a bad request
// line are looked for in the raw bytes first (HeaderPrescan), reading on
// until the scan has a verdict or the bytes pass Beast's limit (then Beast
// answers 414 or 431 as before).
asio::awaitable<Reading> prescan_head(HttpStream& stream, ReadBuffer& buffer,
                                      std::uint32_t header_limit) {
  HeaderPrescan prescan(header_limit);
  error_code ec;
  while (true) {
    auto data = buffer.data();
    std::string_view raw(static_cast<const char*>(data.data()), data.size());
    switch (prescan.scan(raw)) {
      case HeaderPrescan::Verdict::folded:
        co_return refused(400, "obsolete line folding");
      case HeaderPrescan::Verdict::bare_lf:
        co_return refused(400, "bare LF in the request line");
      case HeaderPrescan::Verdict::beast:
        co_return read_on();
      case HeaderPrescan::Verdict::need_more:
        break;
    }
    if (raw.size() > header_limit) co_return read_on();
    std::size_t room = std::min<std::size_t>(4096, buffer.max_size() - buffer.size());
    std::size_t n = co_await stream.async_read_some(buffer.prepare(room),
                                                    asio::redirect_error(asio::use_awaitable, ec));
    if (ec) co_return gone();  // time-out, or the client went away mid-header
    buffer.commit(n);
  }
}

// Beast's error reading the header, or the checks it leaves to the server,
// as the answer interface.md 1.8 gives (protocol errors first, 1.10).
Reading header_verdict(const error_code& ec, const Parser& parser, std::size_t header_bytes,
                       const ReadBuffer& buffer, const HttpSettings& settings) {
  if (ec == http::error::header_limit)
    return refused(classify_oversized_header(parser, settings.max_target), "header limit");
  if (ec && is_quiet_disconnect(ec)) return gone();
  if (ec == http::error::bad_version && has_unsupported_version(buffer))
    return refused(505, "unsupported HTTP version");
  if (ec) return refused(400, "malformed request");
  return {false, check_header(parser, header_bytes, settings)};
}

// Step 1: the request line and header fields, read within the header
// deadline and checked; 413 for a declared length comes right after the
// header checks, before any byte of the body is read (and before any 100
// Continue).
asio::awaitable<Reading> read_head(HttpStream& stream, ReadBuffer& buffer, Parser& parser,
                                   const HttpSettings& settings, bool header_deadline_set) {
  const std::uint32_t header_limit = parser_header_limit(settings);
  parser.header_limit(header_limit);
  // No body limit while the header is read: Beast would report a declared
  // Content-Length over the limit before the header checks below, and a
  // malformed request must win over 413 (interface.md 1.10). The real
  // limit is applied once the header has passed.
  parser.body_limit(std::numeric_limits<std::uint64_t>::max());
  if (!header_deadline_set) stream.expires_after(settings.header_timeout);
  Reading prescan = co_await prescan_head(stream, buffer, header_limit);
  if (prescan.gone || prescan.rejection) co_return prescan;
  error_code ec;
  std::size_t header_bytes = co_await http::async_read_header(
      stream, buffer, parser, asio::redirect_error(asio::use_awaitable, ec));
  Reading head = header_verdict(ec, parser, header_bytes, buffer, settings);
  if (!head.gone && !head.rejection && parser.content_length().value_or(0) > settings.max_body)
    co_return refused(413, "declared body too large");
  co_return head;
}

// interface.md 13.1: behind a trusted proxy, the client it names. Not for
// a refused request: its fields are not to be read.
std::string client_of(const Parser& parser, const std::string& peer, bool is_refused,
                      const HttpSettings& settings) {
  if (is_refused || settings.trusted_proxies.empty()) return peer;
  return choose_client_address(
      peer,
      {field_values(parser.get(), "X-Forwarded-For"), field_values(parser.get(), "Forwarded")},
      settings.trusted_proxies);
}

// Only an HTTP/1.1 client may be sent 100 Continue (RFC 9110 10.1.1), and
// only one that asked for it and has a body still to send.
bool expects_continue(const Parser& parser) {
  const auto& req = parser.get();
  return req.version() == 11 &&
         equals_ignoring_case(as_std_view(req[http::field::expect]), "100-continue") &&
         !parser.is_done();
}

// Beast's error reading the body, as the answer it gets.
Reading body_verdict(const error_code& ec) {
  if (ec == http::error::body_limit) return refused(413, "body too large");
  // Framing that never ends (a chunk-size line, chunk extensions or trailer
  // fields past the read buffer): too large, like a body.
  if (ec == http::error::buffer_overflow) return refused(413, "chunked framing too large");
  if (ec && is_quiet_disconnect(ec)) return gone();
  if (ec) return refused(400, "malformed body framing");
  return read_on();
}

// Step 2: the body of a request whose header passed, bounded in size (413
// as it arrives, chunked or not) and in time (the header deadline still
// runs).
asio::awaitable<Reading> read_body(HttpStream& stream, ReadBuffer& buffer, Parser& parser,
                                   const HttpSettings& settings, const std::string& client) {
  parser.body_limit(settings.max_body);  // bounds a chunked body as it arrives
  if (log::debug_enabled())
    log::debug("request_started",
               {{"method", as_std_view(parser.get().method_string())}, {"client", client}});
  error_code ec;
  if (expects_continue(parser)) {
    static constexpr std::string_view kContinue = "HTTP/1.1 100 Continue\r\n\r\n";
    co_await asio::async_write(stream, asio::buffer(kContinue),
                               asio::redirect_error(asio::use_awaitable, ec));
    if (ec) co_return gone();
  }
  if (!parser.is_done())
    co_await http::async_read(stream, buffer, parser,
                              asio::redirect_error(asio::use_awaitable, ec));
  co_return body_verdict(ec);
}

// interface.md 13.5: one Origin, and it is authd's own public origin or an
// allowed CORS origin. No Origin is not trusted: browsers send one with
// every state-changing request, so only a page could be missing it, not a
// user.
bool is_trusted_origin(const std::vector<std::string_view>& origins, const HttpSettings& settings) {
  if (origins.size() != 1) return false;
  if (!settings.public_origin.empty() && origins.front() == settings.public_origin) return true;
  return allowed_origin(settings.cors_origins, origins).has_value();
}

// interface.md 13.5 and, from a trusted proxy, 13.4: the session cookie,
// whether the request's Origin is trusted, and what a gateway's
// subrequest says of the original request it checks. From any other peer
// X-Original-* are ignored: a client could write them.
void read_cookie_context(ApiRequest& request, const Request& req, bool from_trusted_proxy,
                         const HttpSettings& settings) {
  request.session_cookie = &settings.session_cookie;
  request.session_cookies =
      cookie_values(field_values(req, http::field::cookie), settings.session_cookie.name);
  request.trusted_origin = is_trusted_origin(field_values(req, "Origin"), settings);
  if (!from_trusted_proxy) return;
  request.original_methods = field_values(req, "X-Original-Method");
  request.original_trusted_origin =
      is_trusted_origin(field_values(req, "X-Original-Origin"), settings);
}

// What the router sees of a request read whole; the views point into `req`
// and `method`.
ApiRequest api_request(const Request& req, std::string_view method, const std::string& client,
                       bool from_trusted_proxy, const HttpSettings& settings) {
  ApiRequest request;
  request.listener = settings.listener;
  request.method = method;
  request.path = route_path(as_std_view(req.target()), settings.base_path);
  request.query = route_query(as_std_view(req.target()));
  request.content_types = field_values(req, http::field::content_type);
  request.authorization = field_values(req, http::field::authorization);
  request.body = std::string_view(req.body().data(), req.body().size());
  request.client_address = client;
  if (auto agent = req.find(http::field::user_agent); agent != req.end())
    request.user_agent = as_std_view(agent->value());
  if (settings.session_cookie.on()) read_cookie_context(request, req, from_trusted_proxy, settings);
  request.cookie_fields = field_values(req, http::field::cookie);
  return request;
}

// The route's answer (api/routes.cpp). A handler that throws gets 500,
// logged with the request id; the connection stays open.
asio::awaitable<ApiResponse> handle(ApiContext& api, ApiRequest& request,
                                    const std::string& request_id) {
  try {
    ApiResponse dispatched = co_await dispatch(api, request);
    co_return dispatched;
  } catch (const std::exception& e) {
    log::error("handler_failed", {{"error", e.what()}, {"request_id", request_id}});
  }
  co_return error_response(500);
}

// Step 3: the rejection's error, or the CORS preflight's or the route's
// answer, with CORS headers on each. Only a request read whole, while the
// server is not draining, may keep its connection open.
asio::awaitable<Answer> answer_request(const Parser& parser,
                                       const std::optional<Rejection>& rejection,
                                       const std::string& client, bool from_trusted_proxy,
                                       ExchangeContext context) {
  const HttpSettings& settings = context.settings;
  const Request& req = parser.get();
  Answer answer;
  answer.method = std::string(req.method_string());
  answer.version = req.version() == 10 ? 10 : 11;
  answer.request_id = choose_request_id(field_values(req, "X-Request-Id"));
  auto origin = allowed_origin(settings.cors_origins, field_values(req, "Origin"));
  std::optional<ApiResponse> preflight;
  if (rejection) {
    answer.response = error_response(rejection->status);
    log::debug("request_rejected",
               {{"reason", rejection->reason}, {"request_id", answer.request_id}});
  } else {
    ApiRequest request = api_request(req, answer.method, client, from_trusted_proxy, settings);
    request.request_id = answer.request_id;
    preflight = answer_preflight(
        {answer.method,
         request.path,
         req.count("Access-Control-Request-Method") > 0,
         {context.api.auth.policy.signup_open, context.api.auth.policy.email_signin,
          context.api.auth.policy.oidc.on, context.api.upstreams != nullptr}},
        origin, settings.cors_max_age, settings.session_cookie.on());
    if (preflight) {
      answer.response = std::move(*preflight);
    } else {
      ApiResponse handled = co_await handle(context.api, request, answer.request_id);
      answer.response = std::move(handled);
    }
    answer.keep_alive = req.keep_alive() && !context.draining;
  }
  add_cors_headers(answer.response, !settings.cors_origins.empty(), origin, preflight.has_value(),
                   settings.session_cookie.on());
  co_return answer;
}

// Step 4: the response's bytes, with the headers every response carries
// (http/response_wire.hpp), written within the header time-out; a secret in
// them is wiped once sent. RFC 9110 9.3.2: the answer to HEAD has the
// headers the answer to GET would have, but never a body; sending one would
// make the client read it as the start of the next response.
asio::awaitable<error_code> write_response(HttpStream& stream, Answer& answer, Duration timeout,
                                           bool https) {
  ResponseFrame frame{.version = answer.version,
                      .keep_alive = answer.keep_alive,
                      .head = answer.method == "HEAD",
                      .date = http_date(),
                      .request_id = answer.request_id,
                      .https = https};
  std::string wire = response_wire(answer.response, frame);
  stream.expires_after(timeout);
  error_code ec;
  co_await asio::async_write(stream, asio::buffer(wire),
                             asio::redirect_error(asio::use_awaitable, ec));
  if (answer.response.holds_secret) wipe_sent_response(answer.response, wire);
  co_return ec;
}

// Step 5: the request's one log line and its metrics, once its answer was
// written (or the write failed).
void log_request(const Answer& answer, const std::string& client,
                 std::chrono::steady_clock::time_point started, Metrics* metrics) {
  auto elapsed = std::chrono::steady_clock::now() - started;
  auto latency = std::chrono::duration<double, std::milli>(elapsed);
  log::request({.method = answer.method,
                .route = answer.response.route,
                .status = answer.response.status,
                .latency_ms = std::round(latency.count() * 1000) / 1000,
                .request_id = answer.request_id,
                .client = client});
  if (metrics != nullptr)
    metrics->observe_request(answer.response.route, answer.response.status, elapsed);
}

}  // namespace

asio::awaitable<After> serve_request(HttpStream& stream, const std::string& peer,
                                     ReadBuffer& buffer, bool header_deadline_set,
                                     ExchangeContext context) {
  const HttpSettings& settings = context.settings;
  auto started = std::chrono::steady_clock::now();
  std::optional<Parser> parser(std::in_place);
  Reading head = co_await read_head(stream, buffer, *parser, settings, header_deadline_set);
  if (head.gone) co_return After::close;
  std::optional<Rejection> rejection = head.rejection;
  const std::string client = client_of(*parser, peer, rejection.has_value(), settings);
  if (!rejection) {
    Reading body = co_await read_body(stream, buffer, *parser, settings, client);
    if (body.gone) co_return After::close;
    rejection = body.rejection;
  }
  // Read only where it is used: X-Original-* (interface.md 13.4.2) matter
  // only with cookie sessions on.
  const bool from_trusted_proxy = settings.session_cookie.on() &&
                                  !settings.trusted_proxies.empty() &&
                                  is_trusted_proxy(peer, settings.trusted_proxies);
  Answer answer = co_await answer_request(*parser, rejection, client, from_trusted_proxy, context);
  if (answer.response.hold.count() > 0 && !context.draining) {
    // A busy answer's second (api/hashing_busy.cpp), with the request's
    // headers and body freed, and its bytes wiped from the connection's
    // buffer when nothing of a next request follows them there. A drain
    // ends the wait (the connection cancels the timer it is given here):
    // the answer then goes at once, saying that the connection closes, and
    // the client retries elsewhere instead of holding up the drain.
    parser.reset();
    if (buffer.size() == 0) buffer.shrink_to_fit();
    asio::steady_timer wait(co_await asio::this_coro::executor, answer.response.hold);
    context.held_answer = &wait;
    error_code ignored;
    co_await wait.async_wait(asio::redirect_error(asio::use_awaitable, ignored));
    context.held_answer = nullptr;
  }
  // An answer written once the drain has begun closes its connection, and
  // says so.
  answer.keep_alive = answer.keep_alive && !context.draining;
  error_code ec =
      co_await write_response(stream, answer, settings.header_timeout, settings.tls != nullptr);
  log_request(answer, client, started, context.api.metrics);
  // A refused request may have left part of itself (a body, the rest of a
  // header, a body Beast did not frame) unread on the socket: the
  // connection then closes lingering (http/server.cpp).
  if (ec || !answer.keep_alive) co_return rejection ? After::close_lingering : After::close;
  co_return After::next_request;
}

}  // namespace authd
