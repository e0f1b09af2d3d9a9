// The API layer's view of a request and a response: plain values, no Beast.
// The http layer fills an ApiRequest, dispatches it, and sends the ApiResponse
// with the headers every response carries.
#pragma once

#include <chrono>

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <boost/asio/awaitable.hpp>

#include "auth/context.hpp"
#include "auth/events/events.hpp"

namespace authd {

// The two listeners (interface.md 10.1): the public one, and the management
// one that alone serves /metrics and the admin routes.
enum class Listener { public_api, management };

// Browser sessions by cookie (interface.md 13.5): the cookie's name (empty:
// off, the default) and whether it is sent with `Secure` (dropped only for
// an http:// public URL on a loopback host, where browsers would not keep
// it otherwise).
struct SessionCookie {
  std::string name;
  bool secure = true;
  bool on() const { return !name.empty(); }
};

// The operator console's cookie (interface.md 21.2), on the management
// listener only: its name ("__Host-authd_console" over TLS,
// "authd_console" otherwise) and whether it is sent with `Secure`.
struct ConsoleCookie {
  std::string name;
  bool secure = false;
  bool on() const { return !name.empty(); }
};

struct ApiRequest {
  Listener listener = Listener::public_api;
  std::string_view method;
  std::string_view path;                        // without query and configured prefix
  std::string_view path_parameter;              // the {id} of a route such as /sessions/{id}
  std::string_view query;                       // after '?', before any '#'; may be empty
  std::vector<std::string_view> content_types;  // every Content-Type field value
  std::vector<std::string_view> authorization;  // every Authorization field value
  std::string_view body;                        // owned (and wiped when freed) by the http layer
  std::string client_address;
  std::optional<std::string_view> user_agent;  // the first User-Agent field, if any
  std::string_view request_id;                 // as logged and answered in X-Request-Id
  // interface.md 13.5, when cookie sessions are on (null: off): every value
  // of the session cookie the request carries, and whether its Origin is
  // authd's public one or an allowed CORS origin.
  const SessionCookie* session_cookie = nullptr;
  std::vector<std::string_view> session_cookies;
  // Every Cookie field value, for the cookies of a route of its own (the
  // upstream flow's binder, interface.md 18.2).
  std::vector<std::string_view> cookie_fields;
  bool trusted_origin = false;
  // interface.md 13.4, when cookie sessions are on and the peer is a
  // trusted proxy (empty otherwise): every X-Original-Method value of a
  // gateway's subrequest, the method of the request it checks, and whether
  // its one X-Original-Origin is trusted as `trusted_origin` is.
  std::vector<std::string_view> original_methods;
  bool original_trusted_origin = false;
  // interface.md 21.2, on the management listener: every value of the
  // console's cookie the request carries, and whether its one Origin is the
  // listener's own (the scheme it serves and the request's Host).
  const ConsoleCookie* console_cookie = nullptr;
  std::vector<std::string_view> console_cookies;
  bool same_origin = false;
};

// A response's Content-Type. Only a constant (a string literal, or a
// constexpr view of one) converts to it, so a response can keep a view
// without a copy per request and without one that could dangle.
class ContentType {
 public:
  constexpr ContentType() = default;  // none: a response without a body
  consteval ContentType(const char* literal) : value_(literal) {}
  consteval ContentType(std::string_view constant) : value_(constant) {}
  constexpr std::string_view view() const { return value_; }
  constexpr bool empty() const { return value_.empty(); }

 private:
  std::string_view value_;
};

struct ApiResponse {
  int status = 200;
  std::string body;                                          // JSON unless content_type says
  ContentType content_type = "application/json";             // e.g. text/html for the reset page
  std::vector<std::pair<std::string, std::string>> headers;  // beyond the common ones
  std::string_view route = "unmatched";                      // for logs and metrics
  // A header or the body holds a secret (login's token): the http layer
  // wipes the response and its wire bytes once they are sent.
  bool holds_secret = false;
  // Written only once this has passed (a busy 503's pacing,
  // api/hashing_busy.cpp); the request's own state is freed meanwhile.
  std::chrono::milliseconds hold{0};
};

class Metrics;
class UpstreamRegistry;

struct ApiContext {
  AuthContext& auth;
  Metrics* metrics = nullptr;  // GET /metrics; requests are counted by the http layer
  // The upstream identity providers (interface.md 18); null when none is
  // configured (their routes then answer 404).
  UpstreamRegistry* upstreams = nullptr;
};

using Handler = boost::asio::awaitable<ApiResponse> (*)(ApiContext&, ApiRequest&);

// Who a request's events are recorded as coming from (interface.md 14.1):
// `actor` ("self", "admin:NAME"), the client's address, User-Agent and
// request id, and whether webhooks are on.
EventSource event_source(const ApiContext& ctx, const ApiRequest& request, std::string actor);

// 404, 405, 415 (interface.md 1.4, 1.6), then the route's handler.
boost::asio::awaitable<ApiResponse> dispatch(ApiContext& ctx, ApiRequest& request);

// Every route authd serves (the sign-up routes included), for
// documentation tests: "METHOD /path".
std::vector<std::string> route_list();

// The route labels of the metrics ("/login", ...), each path once.
std::vector<std::string> route_labels();

// The routes that exist only when the operator turns them on: sign-up
// (interface.md 11.4), passwordless sign-in by mail (19.1) and the OpenID
// provider (17.2).
struct OptionalRoutes {
  bool signup_open = false;
  bool email_signin = false;
  bool oidc = false;
  bool upstreams = false;  // interface.md 18: [[upstream]] providers configured
};

// The methods served on `path` ("GET, POST"), for CORS preflights; empty
// when no route has that path (the optional routes count only when they
// are on). `route` is set to the route's label.
std::string methods_of_path(std::string_view path, OptionalRoutes optional,
                            std::string_view& route);

}  // namespace authd
