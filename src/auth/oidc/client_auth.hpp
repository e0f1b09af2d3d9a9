// Client authentication at the token endpoint (interface.md 17.3, 17.7):
// client_secret_basic and client_secret_post for confidential clients,
// `none` (the client_id alone) for public ones. Failures count with the
// failed logins of the client's address (interface.md 6 /login 4), so that
// guessing a client secret is throttled as guessing a password is.
#pragma once

#include <chrono>
#include <optional>
#include <string>

#include <boost/asio/awaitable.hpp>

#include "auth/context.hpp"
#include "auth/events/events.hpp"
#include "store/areas/oauth_clients.hpp"

namespace authd {

// The credentials a request presented (api/oauth_client_credentials.hpp
// reads them). `id` empty: the request named no client at all.
struct PresentedClient {
  std::string id;
  std::optional<std::string> secret;  // wiped by its owner
  enum class Method { basic, post, none } method = Method::none;
};

struct ClientAuthOutcome {
  enum class Status { ok, invalid_client, throttled, unavailable } status = Status::unavailable;
  std::optional<OAuthClientRecord> client;  // ok: the client authenticated
  std::chrono::seconds retry_after{0};      // throttled
};

// Whether `secret` is `client`'s: its SHA-256 compared in constant time
// with the current digest and, before previous_secret_until, the previous
// one (interface.md 17.3).
bool client_secret_matches(const OAuthClientRecord& client, std::string_view secret, Millis now);

// Authenticates `presented` from `source.client_address`. Refused
// (invalid_client): an unknown client, a confidential client without its
// secret or with a wrong one, a public client that sent a secret. Each
// refusal is counted as a failed login of the client address (and its
// IPv6 /56 and /48) and recorded as `oauth.client_auth_failed` (the
// client id when it is a UUID, the method and the reason, never the
// secret); over that limit the answer is throttled, recorded as /login's
// 429s are (one login.failed per key and window). A request naming no
// client is refused and not counted: it guessed at nothing. A request the
// counters allow and that authenticates is answered by a read transaction
// alone; every other one by a write that counts it exactly (a correct
// secret over the limit is throttled all the same).
boost::asio::awaitable<ClientAuthOutcome> authenticate_client(AuthContext& ctx,
                                                              const PresentedClient& presented,
                                                              const EventSource& source);

}  // namespace authd
