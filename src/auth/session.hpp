// Sessions: opaque bearer tokens, stored only as SHA-256 digests, valid for a
// fixed absolute lifetime (interface.md section 5).
#pragma once

#include <optional>
#include <string>

#include <boost/asio/awaitable.hpp>

#include "auth/context.hpp"
#include "store/records.hpp"

namespace authd {

inline constexpr std::string_view kSessionTokenPrefix = "authd_";

struct IssuedSession {
  std::string token;  // handed to the client once, never stored
  SessionRecord record;
};

IssuedSession new_session(std::string_view user_id, Millis now, Duration lifetime);

struct SessionOutcome {
  enum class Kind { ok, invalid_token, unavailable } kind = Kind::unavailable;
  UserRecord user;  // when ok
};

// The user behind a live token (GET /me).
boost::asio::awaitable<SessionOutcome> authenticate(AuthContext& ctx, const std::string& token);

// Revokes the session durably and returns its user (POST /logout).
boost::asio::awaitable<SessionOutcome> log_out(AuthContext& ctx, const std::string& token);

}  // namespace authd
