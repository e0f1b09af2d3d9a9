#include "auth/oidc/consents.hpp"

#include "auth/sessions/session.hpp"
#include "crypto/random.hpp"
#include "store/database.hpp"

namespace authd {

boost::asio::awaitable<OwnConsents> list_own_consents(AuthContext& ctx, const std::string& token) {
  OwnConsents own;
  Sha256Digest digest = sha256(token);
  Millis now = now_millis();
  bool known = false;
  auto work = [&](Transaction& tx) {
    std::optional<UserRecord> user = live_session_user(tx, digest, now);
    known = user.has_value();
    if (known) own.consents = tx.consents().list_of_user(user->id);
  };
  if (co_await ctx.db.read(work) != StoreStatus::ok) co_return own;
  own.kind = known ? OwnConsents::Kind::ok : OwnConsents::Kind::invalid_token;
  co_return own;
}

boost::asio::awaitable<ConsentWithdrawal> withdraw_consent(AuthContext& ctx,
                                                           const std::string& token,
                                                           std::string_view client_id,
                                                           const EventSource& source) {
  ConsentWithdrawal withdrawal;
  Sha256Digest digest = sha256(token);
  Millis now = now_millis();
  auto work = [&](Transaction& tx) {
    std::optional<UserRecord> user = live_session_user(tx, digest, now);
    if (!user) {
      withdrawal.kind = ConsentWithdrawal::Kind::invalid_token;
      return;
    }
    if (!tx.consents().remove(user->id, client_id)) {
      withdrawal.kind = ConsentWithdrawal::Kind::not_found;
      return;
    }
    // 17.5, 17.10: the client's codes, access and refresh tokens for the
    // user end. The codes and refresh tokens first, then the access tokens,
    // which include a concurrent rotation's (store/postgres/refresh_tokens.cpp).
    tx.authorization_codes().delete_of_user_and_client(user->id, client_id);
    std::int64_t revoked = tx.refresh_tokens().revoke_of_user_and_client(user->id, client_id);
    revoked += tx.access_tokens().revoke_of_user_and_client(user->id, client_id);
    record_event(tx, source, "oauth.consent_revoked", user->id,
                 {{"clientId", client_id}, {"revokedTokens", revoked}}, now);
    withdrawal.kind = ConsentWithdrawal::Kind::ok;
  };
  if (co_await ctx.db.write(work) != StoreStatus::ok) co_return ConsentWithdrawal{};
  co_return withdrawal;
}

}  // namespace authd
