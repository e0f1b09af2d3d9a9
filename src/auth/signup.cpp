#include "auth/signup.hpp"

#include "auth/mail_request.hpp"
#include "auth/password_proof.hpp"
#include "auth/session.hpp"
#include "auth/throttle.hpp"
#include "core/wipe.hpp"
#include "crypto/hashing_pool.hpp"
#include "crypto/random.hpp"
#include "store/database.hpp"

namespace authd {
namespace {

// The newest sign-up of an address is the one a link completes
// (interface.md 11.5), within the mail limits or past them: the unsent
// mails and the pending sign-up take its password, whatever order the
// mails are delivered in, so that whoever opens the address's mail
// completes the newest sign-up, not an earlier one made by somebody else
// with a password of their own. The outbox first, then the sign-up: the
// worker's delivery locks them in that order on PostgreSQL.
void renew_pending_signup(Transaction& tx, const OutboxRecord& newer) {
  tx.outbox().renew_unsent_signups(newer);
  tx.signups().renew(newer.email, *newer.password_hash, newer.display_name);
}

}  // namespace

boost::asio::awaitable<SignupOutcome> request_signup(AuthContext& ctx, const std::string& email,
                                                     std::string& password,
                                                     const std::optional<std::string>& display_name,
                                                     const EventSource& source) {
  const std::string& client_address = source.client_address;
  WipeOnExit wipe_password(password);
  const AuthPolicy& policy = ctx.policy;
  const MailRequestLimits limits{
      client_counters(ClientCounterKind::signup, client_address, policy.signup_requests_per_client,
                      policy.ipv6_aggregates),
      signup_mail_key(email), policy.signup_mails_per_email_short,
      policy.signup_mails_per_email_long};

  // 1. A client past its limit gets its 429 before it costs a hash (a read
  //    of its own counters, the same for every address).
  ThrottleVerdict verdict;
  auto precheck = [&](Transaction& tx) {
    verdict = check_throttles(tx, limits.per_client, now_millis());
  };
  if (co_await ctx.db.read(precheck) != StoreStatus::ok) co_return SignupOutcome{};
  if (!verdict.allowed)
    co_return SignupOutcome{SignupOutcome::Kind::throttled, verdict.retry_after};

  // 2. The password is hashed for every address, with or without an
  //    account: the answer's time cannot tell them apart.
  std::optional<std::string> phc = co_await ctx.hashing.hash(password);
  if (!phc) co_return SignupOutcome{SignupOutcome::Kind::busy, {}};
  WipeOnExit wipe_hash(phc);

  // 3. The same rows for every address, as /forgot writes them: no account
  //    is looked up here; the worker decides at delivery which mail goes.
  OutboxRecord mail;
  mail.kind = std::string(kSignupMailKind);
  mail.email = email;
  mail.password_hash = *phc;
  mail.display_name = display_name;
  mail.client_address = client_address;  // the mail says who asked (11.5)
  WipeOnExit wipe_queued_hash(mail.password_hash);
  auto work = [&](Transaction& tx) {
    Millis now = now_millis();
    verdict =
        count_and_queue_mail(tx, limits, mail, now, policy.reset_mail_jitter, renew_pending_signup);
    // Its event names no account: a lookup would show (auth/events.hpp).
    if (verdict.allowed) record_event_for_address(tx, source, "signup.requested", email, {}, now);
  };
  if (co_await ctx.db.write(work) != StoreStatus::ok) co_return SignupOutcome{};
  if (!verdict.allowed)
    co_return SignupOutcome{SignupOutcome::Kind::throttled, verdict.retry_after};
  co_return SignupOutcome{SignupOutcome::Kind::accepted, {}};
}

SignupMail prepare_signup_mail(Transaction& tx, const OutboxRecord& mail, Millis now,
                               Duration lifetime) {
  SignupMail prepared;
  if (tx.users().by_email(mail.email)) {
    // Squatting or a forgotten account: the owner hears of it, nothing is
    // pending, and the mail carries nothing that could create an account.
    prepared.account_exists = true;
    return prepared;
  }
  if (!mail.password_hash) return prepared;  // not a sign-up the API queued: dropped
  prepared.token = new_secret_token(kSignupTokenPrefix);
  tx.signups().replace({sha256(prepared.token), mail.email, *mail.password_hash, mail.display_name,
                        now, now + lifetime.count()});
  return prepared;
}

namespace {

// The pending sign-up of `digest`, if it is live at `now`.
std::optional<PendingSignupRecord> live_signup(Transaction& tx, const Sha256Digest& digest,
                                               Millis now) {
  std::optional<PendingSignupRecord> pending = tx.signups().by_digest(digest);
  if (pending && pending->expires_at <= now) pending.reset();
  return pending;
}

UserRecord account_of(const PendingSignupRecord& pending, Millis now) {
  UserRecord user;
  user.id = new_account_id(now);
  user.email = pending.email;
  user.password_hash = pending.password_hash;
  user.display_name = pending.display_name;
  user.email_verified_at = now;  // the link proved control of the address
  user.created_at = user.updated_at = now;
  user.last_login_at = now;  // the verification opens the first session
  return user;
}

}  // namespace

boost::asio::awaitable<VerifyOutcome> verify_signup(AuthContext& ctx, const std::string& token,
                                                    std::string& password,
                                                    const SessionOrigin& origin,
                                                    const EventSource& source) {
  WipeOnExit wipe_password(password);
  const Sha256Digest digest = sha256(token);
  VerifyOutcome outcome;

  // 1. Unknown and expired tokens stop at a read: they cost no hash.
  std::optional<PendingSignupRecord> pending;
  auto find = [&](Transaction& tx) { pending = live_signup(tx, digest, now_millis()); };
  if (co_await ctx.db.read(find) != StoreStatus::ok) co_return outcome;
  if (!pending) {
    outcome.kind = VerifyOutcome::Kind::invalid_token;
    co_return outcome;
  }
  std::optional<std::string> chosen_hash = std::move(pending->password_hash);
  WipeOnExit wipe_hash(chosen_hash);

  // 2. The password chosen at that sign-up, proved and counted as a login
  //    of the address (6 /login 4): whoever opens the mail cannot complete
  //    somebody else's sign-up. A wrong one leaves the token as it was.
  PasswordProof proof =
      co_await prove_password(ctx, pending->email, chosen_hash, password, source.client_address);
  if (stopped_by(proof, outcome)) co_return outcome;

  // 3. Again under the write lock (on PostgreSQL the row's lock: of two
  //    uses of one token, one wins): the sign-up becomes an account, the
  //    token goes, and the account's first session opens. A sign-up
  //    renewed since step 1 holds another password: the proof was not
  //    for it.
  std::optional<UserRecord> created;
  IssuedSession session;
  auto create = [&](Transaction& tx) {
    created.reset();
    Millis now = now_millis();
    std::optional<PendingSignupRecord> current = live_signup(tx, digest, now);
    std::optional<WipeOnExit> wipe_current;  // after `current`: wipes before it goes
    if (current) wipe_current.emplace(current->password_hash);
    if (!current || current->password_hash != *chosen_hash) {
      proof.reserved.release(tx);  // no wrong guess: the 401 says to try again
      return;
    }
    tx.signups().remove(digest);  // used, whatever the outcome
    UserRecord user = account_of(*current, now);
    WipeOnExit wipe_user_hash(user.password_hash);  // stored: the answer needs none
    // False when the address got an account meanwhile (an operator, or
    // another instance): the sign-up is void.
    if (!tx.users().insert(user)) {
      proof.reserved.release(tx);
      return;
    }
    proof.reserved.clear_on_success(tx, login_email_key(user.email));
    session = new_session(user.id, now, ctx.policy.session_lifetime, origin);
    tx.sessions().insert(session.record);
    record_event(tx, source, "signup.verified", user.id, {{"sessionId", session.record.public_id}},
                 now);
    wipe(*user.password_hash);
    user.password_hash.reset();
    created = std::move(user);
  };
  if (co_await ctx.db.write(create) != StoreStatus::ok) co_return outcome;
  if (!created) {
    outcome.kind = VerifyOutcome::Kind::invalid_token;
    co_return outcome;
  }
  outcome.kind = VerifyOutcome::Kind::created;
  outcome.user = std::move(*created);
  outcome.token = std::move(session.token);
  co_return outcome;
}

}  // namespace authd
