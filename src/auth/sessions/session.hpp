// Sessions: opaque bearer tokens, stored only as SHA-256 digests, valid for a
// fixed absolute lifetime (interface.md section 5).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <boost/asio/awaitable.hpp>

#include "auth/context.hpp"
#include "auth/events/events.hpp"
#include "store/records.hpp"

namespace authd {

inline constexpr std::string_view kSessionTokenPrefix = "authd_";

struct IssuedSession {
  std::string token;  // handed to the client once, never stored
  SessionRecord record;
};

// Where a login came from (interface.md 11.2), recorded with its session.
struct SessionOrigin {
  std::string client_address;                  // the one the throttles count
  std::optional<std::string_view> user_agent;  // the header's value as sent; none: no header
};

// How much of a User-Agent is kept: its first 256 bytes, as well-formed
// UTF-8 (core/utf8.hpp, utf8_prefix).
inline constexpr std::size_t kMaxUserAgentBytes = 256;

IssuedSession new_session(std::string_view user_id, Millis now, Duration lifetime,
                          const SessionOrigin& origin);

// How a session signed in, as RFC 8176 methods, space-separated (the ID
// token's amr, interface.md 17.8): the first factor's ("pwd"; "otp" for a
// mailed link or code; "hwk user" for a passkey), the second factor's when
// one was used ("totp" and "recovery_code": "otp"; "webauthn": "hwk"), each
// once, and "mfa" when there were two.
std::string sign_in_methods(std::string_view first_factor, const char* second_factor_used);

class Transaction;

// The user of a live session (known, unrevoked, unexpired) of an enabled
// account; nothing otherwise. In a write transaction on PostgreSQL the
// user's row is locked.
std::optional<UserRecord> live_session_user(Transaction& tx, const Sha256Digest& digest,
                                            Millis now);

struct SessionOutcome {
  enum class Kind { ok, invalid_token, unavailable } kind = Kind::unavailable;
  UserRecord user;  // when ok
};

// The user behind a live token (GET /me).
boost::asio::awaitable<SessionOutcome> authenticate(AuthContext& ctx, const std::string& token);

// Revokes the session durably and returns its user (POST /logout).
boost::asio::awaitable<SessionOutcome> log_out(AuthContext& ctx, const std::string& token,
                                               const EventSource& source);

// GET /sessions (interface.md 11.2): the caller's live sessions, newest
// first; `current` is the public id of the session of `token`.
struct OwnSessions {
  enum class Kind { ok, invalid_token, unavailable } kind = Kind::unavailable;
  std::vector<SessionRecord> sessions;
  std::string current;
};
boost::asio::awaitable<OwnSessions> list_own_sessions(AuthContext& ctx, const std::string& token);

// DELETE /sessions/{id} and DELETE /sessions (interface.md 11.3).
struct SessionEnding {
  enum class Kind {
    ok,
    not_found,  // not a live session of the caller, whatever else it is
    invalid_token,
    unavailable,
  } kind = Kind::unavailable;
};
// Revokes the caller's live session `public_id` (the caller's own current
// one too: that is a logout).
boost::asio::awaitable<SessionEnding> end_own_session(AuthContext& ctx, const std::string& token,
                                                      std::string_view public_id,
                                                      const EventSource& source);
// Revokes every session of the caller but the one of `token`.
boost::asio::awaitable<SessionEnding> end_other_sessions(AuthContext& ctx, const std::string& token,
                                                         const EventSource& source);

}  // namespace authd
