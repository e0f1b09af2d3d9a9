#include "auth/mail_flows/signup.hpp"

#include "auth/credentials/password_proof.hpp"
#include "auth/login/throttle.hpp"
#include "auth/mail_flows/mail_request.hpp"
#include "auth/sessions/session.hpp"
#include "core/wipe.hpp"
#include "crypto/hashing_pool.hpp"
#include "crypto/random.hpp"
#include "store/database.hpp"

namespace authd {
namespace {

// A sign-up past its address's mail limit is not dropped (interface.md
// 11.5): no mail goes, but the request is kept as the address's newest, so
// that the link of a mail already on its way completes this sign-up, with
// this password, not an earlier one made by somebody else with a password
// of their own. One row, as a request within the limit writes: the same
// work for every address.
void record_past_limit_signup(Transaction& tx, const OutboxRecord& request) {
  OutboxRecord kept = request;
  kept.kind = std::string(kSignupRequestKind);
  tx.outbox().record_signup_request(kept);
  wipe(*kept.password_hash);
}

// What the account of a sign-up is made of: the newest request of its
// address (interface.md 11.5), whatever order the mails went out in. The
// newest outbox row that still holds a hash (an unsent mail, or a request
// past the limit), unless the pending sign-up holds a newer one (its mail
// sent since, its row's hash cleared).
struct SignupRequest {
  std::int64_t id = 0;
  std::string password_hash;
  std::optional<std::string> display_name;
  Millis requested_at = 0;  // 0: not known (the pending sign-up's)
  std::string client_address;
};

std::optional<SignupRequest> newest_request(Transaction& tx, std::string_view email,
                                            const std::optional<PendingSignupRecord>& pending) {
  std::optional<OutboxRecord> row = tx.outbox().newest_signup_request(email);
  if (row && (!pending || row->id > pending->request_id)) {
    return SignupRequest{row->id, std::move(*row->password_hash), std::move(row->display_name),
                         row->created_at, row->client_address.value_or("")};
  }
  if (row) wipe(*row->password_hash);
  if (!pending) return std::nullopt;
  return SignupRequest{pending->request_id, pending->password_hash, pending->display_name, 0, ""};
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
    verdict = count_and_queue_mail(tx, limits, mail, now, policy.reset_mail_jitter,
                                   record_past_limit_signup);
    // Its event names no account: a lookup would show (auth/events/events.hpp).
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
  // The mail's own row holds its hash: there is always a newest request.
  std::optional<SignupRequest> newest =
      newest_request(tx, mail.email, tx.signups().by_email(mail.email));
  if (!newest) return prepared;
  WipeOnExit wipe_hash(newest->password_hash);
  prepared.token = new_secret_token(kSignupTokenPrefix);
  tx.signups().replace({sha256(prepared.token), mail.email, newest->password_hash,
                        newest->display_name, now, now + lifetime.count(), newest->id});
  // The mail names the request whose password its link takes.
  prepared.requested_at = newest->requested_at != 0 ? newest->requested_at : mail.created_at;
  prepared.requested_by =
      newest->requested_at != 0 ? newest->client_address : mail.client_address.value_or("");
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

UserRecord account_of(const std::string& email, const SignupRequest& request, Millis now) {
  UserRecord user;
  user.id = new_account_id(now);
  user.email = email;
  user.password_hash = request.password_hash;
  user.display_name = request.display_name;
  user.email_verified_at = now;  // the link proved control of the address
  user.created_at = user.updated_at = now;
  user.last_login_at = now;  // the verification opens the first session
  return user;
}

// A sign-up's verification (interface.md 11.5). run() holds the steps'
// awaits, in the order they run; what a step does between them is a member
// of its own. It lives in verify_signup's frame, and its members are the
// locals the steps share.
class SignupVerification {
 public:
  SignupVerification(AuthContext& ctx, const std::string& token, std::string& password,
                     const SessionOrigin& origin, const EventSource& source)
      : ctx_(ctx), password_(password), origin_(origin), source_(source), digest_(sha256(token)) {}

  boost::asio::awaitable<VerifyOutcome> run() {
    // 1. Unknown and expired tokens stop at a read: they cost no hash. The
    //    password to prove is the address's newest request's.
    auto find = [this](Transaction& tx) { find_in(tx); };
    StoreStatus found = co_await ctx_.db.read(find);
    if (found != StoreStatus::ok) co_return std::move(outcome_);
    if (!pending_ || !chosen_hash_) co_return ended(VerifyOutcome::Kind::invalid_token);
    wipe(pending_->password_hash);
    // 2. The password chosen at that sign-up, proved and counted as a login
    //    of the address (6 /login 4): whoever opens the mail cannot complete
    //    somebody else's sign-up. A wrong one leaves the token as it was.
    PasswordProof proof = co_await prove_password(ctx_, pending_->email, chosen_hash_, password_,
                                                  source_.client_address);
    proof_ = std::move(proof);
    if (stopped_by(proof_, outcome_)) co_return std::move(outcome_);
    // 3. Again under the write lock (on PostgreSQL the row's lock: of two
    //    uses of one token, one wins): the sign-up becomes an account, the
    //    token goes, and the account's first session opens. A newer request
    //    of the address since step 1 holds another password: the proof was
    //    not for it.
    auto create = [this](Transaction& tx) { create_in(tx); };
    StoreStatus created = co_await ctx_.db.write(create);
    if (created != StoreStatus::ok) co_return std::move(outcome_);
    if (!created_) co_return ended(VerifyOutcome::Kind::invalid_token);
    outcome_.user = std::move(*created_);
    outcome_.token = std::move(session_.token);
    co_return ended(VerifyOutcome::Kind::created);
  }

 private:
  VerifyOutcome ended(VerifyOutcome::Kind kind) {
    outcome_.kind = kind;
    return std::move(outcome_);
  }

  // Step 1's read.
  void find_in(Transaction& tx) {
    pending_ = live_signup(tx, digest_, now_millis());
    std::optional<SignupRequest> newest;
    if (pending_) newest = newest_request(tx, pending_->email, pending_);
    if (newest) chosen_hash_ = std::move(newest->password_hash);
  }

  // Step 3's transaction.
  void create_in(Transaction& tx) {
    created_.reset();
    Millis now = now_millis();
    std::optional<PendingSignupRecord> current = live_signup(tx, digest_, now);
    std::optional<SignupRequest> newest;
    if (current) newest = newest_request(tx, current->email, current);
    std::optional<WipeOnExit> wipe_current, wipe_newest;  // wiped before they go
    if (current) wipe_current.emplace(current->password_hash);
    if (newest) wipe_newest.emplace(newest->password_hash);
    if (!newest || newest->password_hash != *chosen_hash_) {
      proof_.reserved.release(tx);  // no wrong guess: the 401 says to try again
      return;
    }
    tx.signups().remove(digest_);  // used, whatever the outcome
    open_account(tx, current->email, *newest, now);
  }

  // Step 3: the account, its first session and its event.
  void open_account(Transaction& tx, const std::string& email, const SignupRequest& newest,
                    Millis now) {
    UserRecord user = account_of(email, newest, now);
    WipeOnExit wipe_user_hash(user.password_hash);  // stored: the answer needs none
    // False when the address got an account meanwhile (an operator, or
    // another instance): the sign-up is void.
    if (!tx.users().insert(user)) {
      proof_.reserved.release(tx);
      return;
    }
    tx.outbox().forget_signup_requests(user.email);  // the account holds the hash now
    proof_.reserved.clear_on_success(tx, login_email_key(user.email));
    session_ = new_session(user.id, now, ctx_.policy.session_lifetime, origin_);
    session_.record.amr = sign_in_methods("pwd", nullptr);  // the password proved at /verify
    tx.sessions().insert(session_.record);
    record_event(tx, source_, "signup.verified", user.id,
                 {{"sessionId", session_.record.public_id}}, now);
    wipe(*user.password_hash);
    user.password_hash.reset();
    created_ = std::move(user);
  }

  AuthContext& ctx_;
  std::string& password_;
  const SessionOrigin& origin_;
  const EventSource& source_;
  const Sha256Digest digest_;

  std::optional<PendingSignupRecord> pending_;  // step 1
  std::optional<std::string> chosen_hash_;      // step 1
  WipeOnExit wipe_hash_{chosen_hash_};
  PasswordProof proof_;                // step 2
  std::optional<UserRecord> created_;  // step 3
  IssuedSession session_;              // step 3
  VerifyOutcome outcome_;
};

}  // namespace

boost::asio::awaitable<VerifyOutcome> verify_signup(AuthContext& ctx, const std::string& token,
                                                    std::string& password,
                                                    const SessionOrigin& origin,
                                                    const EventSource& source) {
  WipeOnExit wipe_password(password);
  SignupVerification verification(ctx, token, password, origin, source);
  VerifyOutcome outcome = co_await verification.run();
  co_return outcome;
}

}  // namespace authd
