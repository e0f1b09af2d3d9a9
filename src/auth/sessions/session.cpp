#include "auth/sessions/session.hpp"

#include <utility>

#include "core/ascii.hpp"
#include "core/utf8.hpp"
#include "crypto/random.hpp"
#include "store/database.hpp"

namespace authd {
namespace {

// Runs `work(tx, user, digest, now)` in one transaction of `mode` when
// `token` names a live session; the ending's kind otherwise.
template <class Work>
boost::asio::awaitable<SessionEnding::Kind> in_live_session(AuthContext& ctx,
                                                            const std::string& token,
                                                            Store::Mode mode, Work work) {
  const Sha256Digest digest = sha256(token);
  const Millis now = now_millis();
  bool live = false;
  auto run = [&](Transaction& tx) {
    std::optional<UserRecord> user = live_session_user(tx, digest, now);
    live = user.has_value();
    if (live) work(tx, *user, digest, now);
  };
  StoreStatus status = StoreStatus::failed;
  if (mode == Store::Mode::read) {
    status = co_await ctx.db.read(run);
  } else {
    status = co_await ctx.db.write(run);
  }
  if (status != StoreStatus::ok) co_return SessionEnding::Kind::unavailable;
  co_return live ? SessionEnding::Kind::ok : SessionEnding::Kind::invalid_token;
}

}  // namespace

std::optional<UserRecord> live_session_user(Transaction& tx, const Sha256Digest& digest,
                                            Millis now) {
  auto found = tx.sessions().user_of(digest);
  if (!found || found->expires_at <= now) return std::nullopt;  // expired = unknown
  if (found->user.disabled) return std::nullopt;
  return std::move(found->user);
}

std::string sign_in_methods(std::string_view first_factor, const char* second_factor_used) {
  std::string methods(first_factor);
  if (second_factor_used == nullptr) return methods;
  std::string_view second = std::string_view(second_factor_used) == "webauthn" ? "hwk" : "otp";
  if (methods.find(second) == std::string::npos) methods.append(" ").append(second);
  return methods + " mfa";
}

IssuedSession new_session(std::string_view user_id, Millis now, Duration lifetime,
                          const SessionOrigin& origin) {
  IssuedSession issued;
  issued.token = new_secret_token(kSessionTokenPrefix);
  issued.record.token_digest = sha256(issued.token);
  issued.record.user_id = std::string(user_id);
  issued.record.created_at = now;
  issued.record.expires_at = now + lifetime.count();
  issued.record.public_id = new_uuid_v4();
  issued.record.client_address = origin.client_address;
  if (origin.user_agent)
    issued.record.user_agent = utf8_prefix(*origin.user_agent, kMaxUserAgentBytes);
  return issued;
}

boost::asio::awaitable<SessionOutcome> authenticate(AuthContext& ctx, const std::string& token) {
  Sha256Digest digest = sha256(token);
  Millis now = now_millis();
  std::optional<UserRecord> user;
  auto work = [&](Transaction& tx) { user = live_session_user(tx, digest, now); };
  StoreStatus status = co_await ctx.db.read(work);
  if (status != StoreStatus::ok) co_return SessionOutcome{};
  if (!user) co_return SessionOutcome{SessionOutcome::Kind::invalid_token, {}};
  co_return SessionOutcome{SessionOutcome::Kind::ok, std::move(*user)};
}

boost::asio::awaitable<SessionOutcome> log_out(AuthContext& ctx, const std::string& token,
                                               const EventSource& source) {
  Sha256Digest digest = sha256(token);
  Millis now = now_millis();
  std::optional<UserRecord> user;
  auto work = [&](Transaction& tx) {
    user = tx.sessions().revoke_live(digest, now);
    if (user) record_event(tx, source, "logout", user->id, nlohmann::json::object(), now);
  };
  // Shares its COMMIT with the logouts queued beside it: it locks only its
  // session's row, and run again it only assigns `user` again.
  StoreStatus status = co_await ctx.db.write_together(work);
  if (status != StoreStatus::ok) co_return SessionOutcome{};
  if (!user) co_return SessionOutcome{SessionOutcome::Kind::invalid_token, {}};
  co_return SessionOutcome{SessionOutcome::Kind::ok, std::move(*user)};
}

boost::asio::awaitable<OwnSessions> list_own_sessions(AuthContext& ctx, const std::string& token) {
  OwnSessions own;
  auto list = [&](Transaction& tx, const UserRecord& user, const Sha256Digest& digest, Millis now) {
    own.sessions = tx.sessions().list_live_of_user(user.id, now);
    for (const SessionRecord& session : own.sessions)
      if (session.token_digest == digest) own.current = session.public_id;
  };
  SessionEnding::Kind kind = co_await in_live_session(ctx, token, Store::Mode::read, list);
  own.kind = kind == SessionEnding::Kind::ok              ? OwnSessions::Kind::ok
             : kind == SessionEnding::Kind::invalid_token ? OwnSessions::Kind::invalid_token
                                                          : OwnSessions::Kind::unavailable;
  co_return own;
}

boost::asio::awaitable<SessionEnding> end_own_session(AuthContext& ctx, const std::string& token,
                                                      std::string_view public_id,
                                                      const EventSource& source) {
  // UUIDs are case-insensitive on input (RFC 9562); authd writes them in
  // lower case. Anything that is not a UUID is nobody's session.
  std::string id(public_id);
  for (char& c : id) c = ascii_lower(c);
  bool revoked = false;
  auto end = [&](Transaction& tx, const UserRecord& user, const Sha256Digest&, Millis now) {
    if (is_canonical_uuid(id))
      revoked = tx.sessions().revoke_by_public_id_of_user(user.id, id, now);
    if (revoked)
      record_event(tx, source, "session.revoked", user.id, {{"sessionId", id}, {"count", 1}}, now);
  };
  SessionEnding::Kind kind = co_await in_live_session(ctx, token, Store::Mode::write, end);
  if (kind == SessionEnding::Kind::ok && !revoked) kind = SessionEnding::Kind::not_found;
  co_return SessionEnding{kind};
}

boost::asio::awaitable<SessionEnding> end_other_sessions(AuthContext& ctx, const std::string& token,
                                                         const EventSource& source) {
  auto end = [&](Transaction& tx, const UserRecord& user, const Sha256Digest& digest, Millis now) {
    std::int64_t ended = tx.sessions().revoke_others_of_user(user.id, digest, now);
    if (ended > 0)
      record_event(tx, source, "session.revoked", user.id, {{"count", ended}, {"others", true}},
                   now);
  };
  SessionEnding::Kind kind = co_await in_live_session(ctx, token, Store::Mode::write, end);
  co_return SessionEnding{kind};
}

}  // namespace authd
