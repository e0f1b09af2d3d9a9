#include "auth/mail_flows/recovery.hpp"

#include <sodium.h>

#include <algorithm>

#include "auth/credentials/password_rules.hpp"
#include "auth/events/notices.hpp"
#include "auth/login/throttle.hpp"
#include "auth/mail_flows/mail_request.hpp"
#include "auth/mail_flows/mailed_links.hpp"
#include "auth/oidc/user_tokens.hpp"
#include "auth/upstream/identities.hpp"
#include "core/wipe.hpp"
#include "crypto/hashing_pool.hpp"
#include "crypto/random.hpp"
#include "store/database.hpp"

namespace authd {
namespace {

// The account a reset token may still be used for: the token is known, not
// expired, and its account exists and is enabled.
std::optional<UserRecord> account_of_live_token(Transaction& tx, const Sha256Digest& digest,
                                                Millis now) {
  auto record = tx.reset_tokens().by_digest(digest);
  if (!record || record->expires_at <= now) return std::nullopt;
  auto user = tx.users().by_id(record->user_id);
  if (!user || user->disabled) return std::nullopt;
  return user;
}

}  // namespace

boost::asio::awaitable<ForgotOutcome> request_password_reset(AuthContext& ctx,
                                                             const std::string& email,
                                                             const EventSource& source) {
  const AuthPolicy& policy = ctx.policy;
  // The client's own counter (and for IPv6 its /56's and /48's), and the
  // address's mail limits. The event names no account
  // (auth/events/events.hpp).
  const MailRequestLimits limits{
      client_counters(ClientCounterKind::forgot, source.client_address,
                      policy.forgot_requests_per_client, policy.ipv6_aggregates),
      reset_mail_key(email), policy.reset_mails_per_email_short, policy.reset_mails_per_email_long};
  OutboxRecord mail;
  mail.kind = std::string(kResetMailKind);
  mail.email = email;
  AddressMailOutcome outcome =
      co_await request_address_mail(ctx, limits, mail, source, "password.reset_requested");
  co_return outcome;
}

std::optional<std::string> mint_reset_token(Transaction& tx, const OutboxRecord& mail, Millis now,
                                            Duration lifetime) {
  auto user = tx.users().by_email(mail.email);
  if (!user || user->disabled) return std::nullopt;
  // A request queued by an older release names its account: if the address now
  // belongs to another one (the first deleted, the address reused), the
  // request was not this account's.
  if (!mail.user_id.empty() && mail.user_id != user->id) return std::nullopt;
  std::string token = new_secret_token(kResetTokenPrefix);
  tx.reset_tokens().replace({sha256(token), user->id, now, now + lifetime.count()});
  return token;
}

namespace {

// Step 3's transaction: the account of the token, if it is still live, with
// its new password, its tokens and sessions gone; nothing when the token
// is not live any more.
std::optional<UserRecord> apply_reset(Transaction& tx, const AuthPolicy& policy,
                                      const Sha256Digest& digest, const std::string& phc,
                                      const EventSource& source) {
  Millis now = now_millis();
  std::optional<UserRecord> user = account_of_live_token(tx, digest, now);
  if (!user) return user;
  now = std::max(now, user->updated_at + 1);  // updatedAt always moves forward (2.6)
  user->password_hash = phc;
  if (!user->email_verified_at) {  // control of the address
    user->email_verified_at = now;
    // Links made before anyone proved it are not the owner's (18.3).
    unlink_on_first_proof(tx, source, user->id, now);
  }
  user->updated_at = now;
  tx.users().update(*user);
  void_mailed_links(tx, user->id);
  tx.sessions().delete_of_user(user->id);
  revoke_oauth_tokens_of_user(tx, user->id);  // 17.10
  // The owner proved control of the address: lift a lockout that guesses
  // by someone else put on it.
  tx.throttle().delete_events(login_email_key(user->email));
  record_event(tx, source, "password.reset", user->id, nlohmann::json::object(), now);
  queue_notice(tx, policy.notify, {NoticeTopic::password_changed, NoticeActor::reset}, *user,
               user->email, now);
  return user;
}

}  // namespace

boost::asio::awaitable<ResetOutcome> reset_password(AuthContext& ctx, const std::string& token,
                                                    std::string& password,
                                                    const EventSource& source) {
  WipeOnExit wipe_password(password);
  const Sha256Digest digest = sha256(token);
  ResetOutcome outcome;

  // 1. The token, then the rules that need the account (7.2's order). Both
  //    answers leave the token as it was.
  std::optional<UserRecord> user;
  auto find = [&](Transaction& tx) { user = account_of_live_token(tx, digest, now_millis()); };
  StoreStatus status = co_await ctx.db.read(find);
  if (status != StoreStatus::ok) co_return outcome;
  if (!user) {
    outcome.kind = ResetOutcome::Kind::invalid_token;
    co_return outcome;
  }
  if (auto problem = new_password_problem(password, user->email)) {
    outcome.kind = ResetOutcome::Kind::bad_password;
    outcome.problem = *problem;
    co_return outcome;
  }

  // 2. The slow part, outside any transaction.
  std::optional<std::string> phc = co_await ctx.hashing.hash(password);
  if (!phc) {
    outcome.kind = ResetOutcome::Kind::busy;
    co_return outcome;
  }

  // 3. Check the token again: another reset may have used it, or the
  //    account may have been disabled, while we were hashing.
  auto apply = [&](Transaction& tx) { user = apply_reset(tx, ctx.policy, digest, *phc, source); };
  StoreStatus applied = co_await ctx.db.write(apply);
  if (applied != StoreStatus::ok) co_return outcome;
  if (!user) {
    outcome.kind = ResetOutcome::Kind::invalid_token;
    co_return outcome;
  }
  outcome.kind = ResetOutcome::Kind::ok;
  outcome.user = std::move(*user);
  co_return outcome;
}

}  // namespace authd
