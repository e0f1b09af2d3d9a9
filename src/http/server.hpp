// The HTTP/1.1 front end (interface.md section 1): accepts connections,
// enforces the protocol limits and time-outs, hands each well-formed request
// to the API router, and sends every response with the common headers.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>

#include "api/api.hpp"
#include "core/duration.hpp"
#include "http/client_address.hpp"
#include "http/connection_registry.hpp"
#include "http/io_threads.hpp"

namespace authd {

class TlsContexts;  // http/tls.hpp

struct HttpSettings {
  // Which routes this listener serves (api/routes.cpp): the public API, or
  // the management routes (/metrics, /healthz, later /admin/...).
  Listener listener = Listener::public_api;
  std::string host = "127.0.0.1";
  unsigned short port = 8080;
  std::string base_path;  // optional prefix such as "/auth"
  std::size_t max_body = std::size_t{16} * 1024;
  std::size_t max_target = std::size_t{8} * 1024;
  std::size_t max_header_section = std::size_t{16} * 1024;
  Duration header_timeout = std::chrono::seconds(10);  // also bounds the body
  Duration idle_timeout = std::chrono::seconds(60);
  Duration drain_timeout = std::chrono::seconds(30);
  // CORS (http/cors.hpp): exact origins allowed to call authd from a
  // browser; none: CORS is off and no CORS header is ever sent.
  std::vector<std::string> cors_origins;
  Duration cors_max_age = std::chrono::minutes(10);
  // Open connections: in all and per client
  // (docs/design/threat-model/denial-of-service.md#connection-limits).
  ConnectionRegistry::Limits connection_limits;
  // Peers whose X-Forwarded-For or Forwarded names the client (interface.md
  // 13.1, http/client_address.hpp); none: the peer is always the client.
  TrustedProxies trusted_proxies;
  // interface.md 13.2: every connection starts with a PROXY protocol header
  // (v1 or v2) from one of the trusted proxies, naming the client; any
  // other connection is closed unanswered.
  bool proxy_protocol = false;
  // Browser sessions by cookie (interface.md 13.5; name empty: off), and
  // the public URL's origin, which may send state-changing requests
  // authenticated by the cookie (besides the CORS origins).
  SessionCookie session_cookie;
  std::string public_origin;
  // The operator console's session cookie (interface.md 21.2): the
  // management listener's only.
  ConsoleCookie console_cookie;
  // interface.md 13.3: HTTPS only, with the holder's current certificate
  // at each accept (both listeners share one holder); null: plain HTTP.
  std::shared_ptr<TlsContexts> tls;
};

class Server {
 public:
  // Accepts on `threads.main()` and spreads connections over all the threads.
  Server(IoThreads& threads, HttpSettings settings, ApiContext& api);
  ~Server();

  // Binds and starts accepting; returns the bound endpoint (port 0 picks one).
  boost::asio::ip::tcp::endpoint listen();

  // Graceful stop: no new connections, idle ones closed, in-flight requests
  // answered (with Connection: close). Thread-safe. Once every connection is
  // gone the server holds no more work on any thread, and IoThreads::run
  // returns.
  void drain();

  // Requests still in flight when --drain-timeout ran out and the server
  // stopped anyway (0 when the drain finished in time).
  std::size_t dropped_by_drain() const;

  // The open connections and the ones refused or closed by the caps, for
  // GET /metrics.
  const ConnectionRegistry& connections() const;

 private:
  struct State;
  std::shared_ptr<State> state_;
};

}  // namespace authd
