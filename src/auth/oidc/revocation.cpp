#include "auth/oidc/revocation.hpp"

#include "auth/oidc/access_tokens.hpp"
#include "store/database.hpp"

namespace authd {
namespace {

using Kind = RevocationOutcome::Kind;

// One revocation, in one write transaction: the token is found as a
// refresh token, else as an access token, and removed when it is the
// caller's and still live.
class Revocation {
 public:
  // An access token is stored under `access_digest`: the opaque token's
  // digest (a JWT access token's is its jti's, 17.9).
  Revocation(const OAuthClientRecord& client, const std::string& token,
             std::optional<Sha256Digest> access_digest, const EventSource& source)
      : client_(client), digest_(sha256(token)), access_digest_(access_digest), source_(source) {}

  void run(Transaction& tx) {
    outcome_ = RevocationOutcome{Kind::ok, 0};
    if (std::optional<RefreshTokenRecord> refresh = tx.refresh_tokens().by_digest(digest_))
      return revoke_refresh(tx, *refresh);
    if (!access_digest_) return;
    if (auto access = tx.access_tokens().live_with_user(*access_digest_, now_))
      return revoke_access(tx, access->token);
    if (auto machine = tx.client_tokens().live(*access_digest_, now_))
      return revoke_client_token(tx, *machine);
  }

  RevocationOutcome outcome() const { return outcome_; }

 private:
  // A used (rotated) or expired refresh token is already dead: nothing to
  // do, for any client.
  void revoke_refresh(Transaction& tx, const RefreshTokenRecord& token) {
    bool live = !token.used_at && token.expires_at > now_ && token.family_expires_at > now_;
    if (!live) return;
    if (token.client_id != client_.id) return refuse();
    // The refresh tokens first (store/postgres/refresh_tokens.cpp).
    outcome_.revoked = tx.refresh_tokens().revoke_family(token.family_digest);
    outcome_.revoked += tx.access_tokens().revoke_of_grant(token.family_digest);
    record(tx, token.user_id, "refresh_token");
  }

  void revoke_access(Transaction& tx, const AccessTokenRecord& token) {
    if (token.client_id != client_.id) return refuse();
    outcome_.revoked = tx.access_tokens().revoke(*access_digest_) ? 1 : 0;
    record(tx, token.user_id, "access_token");
  }

  // A client_credentials token (17.7): its client's alone, and no user's.
  void revoke_client_token(Transaction& tx, const ClientTokenRecord& token) {
    if (token.client_id != client_.id) return refuse();
    outcome_.revoked = tx.client_tokens().revoke(*access_digest_) ? 1 : 0;
    record(tx, std::nullopt, "access_token");
  }

  void refuse() { outcome_.kind = Kind::unauthorized_client; }

  void record(Transaction& tx, const std::optional<std::string>& user_id, const char* type) {
    record_event(
        tx, source_, "oauth.token_revoked", user_id,
        {{"clientId", client_.id}, {"tokenType", type}, {"revokedTokens", outcome_.revoked}}, now_);
  }

  const OAuthClientRecord& client_;
  Sha256Digest digest_;
  std::optional<Sha256Digest> access_digest_;
  const EventSource& source_;
  Millis now_ = now_millis();
  RevocationOutcome outcome_;
};

}  // namespace

boost::asio::awaitable<RevocationOutcome> revoke_token(AuthContext& ctx,
                                                       const OAuthClientRecord& client,
                                                       const std::string& token,
                                                       const EventSource& source) {
  // The opaque access token's digest, or a JWT access token's jti's (17.9)
  // once the JWT has verified; none for a JWT that does not.
  Revocation revocation(client, token, presented_access_token_digest(ctx, token, now_millis()),
                        source);
  auto work = [&](Transaction& tx) { revocation.run(tx); };
  if (co_await ctx.db.write(work) != StoreStatus::ok) co_return RevocationOutcome{};
  co_return revocation.outcome();
}

}  // namespace authd
