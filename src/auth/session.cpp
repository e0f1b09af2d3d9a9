#include "auth/session.hpp"

#include <utility>

#include "crypto/random.hpp"
#include "store/database.hpp"

namespace authd {
namespace {

// The session's user, when the token names a live session of an enabled account.
std::optional<UserRecord> live_session_user(Transaction& tx, const Sha256Digest& digest,
                                            Millis now) {
  auto found = tx.sessions().user_of(digest);
  if (!found || found->expires_at <= now) return std::nullopt;  // expired = unknown
  if (found->user.disabled) return std::nullopt;
  return std::move(found->user);
}

}  // namespace

IssuedSession new_session(std::string_view user_id, Millis now, Duration lifetime) {
  IssuedSession issued;
  issued.token = new_secret_token(kSessionTokenPrefix);
  issued.record.token_digest = sha256(issued.token);
  issued.record.user_id = std::string(user_id);
  issued.record.created_at = now;
  issued.record.expires_at = now + lifetime.count();
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

boost::asio::awaitable<SessionOutcome> log_out(AuthContext& ctx, const std::string& token) {
  Sha256Digest digest = sha256(token);
  Millis now = now_millis();
  std::optional<UserRecord> user;
  auto work = [&](Transaction& tx) {
    user = live_session_user(tx, digest, now);
    if (user) tx.sessions().revoke(digest, now);
  };
  StoreStatus status = co_await ctx.db.write(work);
  if (status != StoreStatus::ok) co_return SessionOutcome{};
  if (!user) co_return SessionOutcome{SessionOutcome::Kind::invalid_token, {}};
  co_return SessionOutcome{SessionOutcome::Kind::ok, std::move(*user)};
}

}  // namespace authd
