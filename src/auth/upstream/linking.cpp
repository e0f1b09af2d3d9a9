#include "auth/upstream/linking.hpp"

#include "auth/admin/accounts.hpp"
#include "auth/credentials/email.hpp"
#include "crypto/random.hpp"
#include "store/database.hpp"

namespace authd {
namespace {

using Outcome = UpstreamSignInOutcome;

// What the upstream said, as authd may use it: an address that is not
// valid by 3.1 is no address, and a display name outside 10.4's rules none.
UpstreamAccount usable(const UpstreamAccount& given) {
  UpstreamAccount account = given;
  account.email = is_valid_email(given.email) ? canonical_email(given.email) : "";
  if (account.email.empty()) account.email_verified = false;
  if (!is_valid_display_name(account.display_name)) account.display_name.clear();
  return account;
}

IdentityRecord new_link(std::string_view user_id, const UpstreamAccount& account, Millis now) {
  return IdentityRecord{new_uuid_v4(),   std::string(user_id), account.provider,
                        account.subject, account.email,        now,
                        std::nullopt};
}

// identity.linked (14.1.3): `how` the link came to be; never the subject
// (an upstream's identifier of a person) nor the e-mail unmasked.
void record_linked(Transaction& tx, const EventSource& source, const IdentityRecord& link,
                   const char* how, Millis now) {
  record_event(tx, source, "identity.linked", link.user_id,
               {{"identityId", link.id}, {"provider", link.provider}, {"how", how}}, now);
}

UpstreamSignIn signed_in(Outcome outcome, UserRecord user, std::string identity_id) {
  return UpstreamSignIn{outcome, std::move(user), std::move(identity_id)};
}

// 18.3: a known link signs its account in, whatever the upstream now says
// of the e-mail (a link is by subject, never by address).
UpstreamSignIn through_known_link(Transaction& tx, const IdentityRecord& link, Millis now) {
  std::optional<UserRecord> user = tx.users().by_id(link.user_id);  // locked on PostgreSQL
  if (!user) return {Outcome::signup_closed, std::nullopt, {}};     // erased meanwhile
  if (user->disabled) return {Outcome::account_disabled, std::nullopt, {}};
  tx.identities().record_use(link.id, now);
  return signed_in(Outcome::known_link, std::move(*user), link.id);
}

// 18.3: an account holds the address. Linked only when the upstream
// asserts it verified AND authd holds it verified: an account somebody
// made with another's address before its owner proved it is never reached
// (pre-hijacking), nor is any account through an upstream that does not
// vouch for the address. Nothing is written otherwise.
std::optional<UpstreamSignIn> through_email(Transaction& tx, const UpstreamAccount& account,
                                            const UserRecord& user, const EventSource& source,
                                            Millis now) {
  if (!account.email_verified || !user.email_verified_at)
    return UpstreamSignIn{Outcome::link_from_account, std::nullopt, {}};
  if (user.disabled) return UpstreamSignIn{Outcome::account_disabled, std::nullopt, {}};
  IdentityRecord link = new_link(user.id, account, now);
  link.last_used_at = now;
  if (!tx.identities().insert(link)) return std::nullopt;  // linked meanwhile: read again
  record_linked(tx, source, link, "email", now);
  return signed_in(Outcome::linked_by_email, user, link.id);
}

// 18.3: sign-up through the upstream. The account has no password (it
// logs in at /login never, at the cost of a wrong password: 6 /login 2);
// its address is verified only when the upstream says so.
std::optional<UpstreamSignIn> by_signup(Transaction& tx, const UpstreamAccount& account,
                                        const EventSource& source, Millis now) {
  UserRecord user;
  user.id = new_account_id(now);
  user.email = account.email;
  if (!account.display_name.empty()) user.display_name = account.display_name;
  if (account.email_verified) user.email_verified_at = now;
  user.created_at = user.updated_at = now;
  if (!tx.users().insert(user)) return std::nullopt;  // the address taken meanwhile: read again
  IdentityRecord link = new_link(user.id, account, now);
  link.last_used_at = now;
  // Another account got this subject meanwhile (PostgreSQL, another
  // instance): this transaction cannot keep its half-made account.
  if (!tx.identities().insert(link)) throw StoreError("upstream identity linked concurrently");
  record_event(tx, source, "user.created", user.id,
               {{"passwordSet", false}, {"provider", account.provider}}, now);
  record_linked(tx, source, link, "signup", now);
  return signed_in(Outcome::created, std::move(user), link.id);
}

// One pass of the rules; nothing when a race was lost and a second pass,
// which reads what the winner committed, decides.
std::optional<UpstreamSignIn> resolve_once(Transaction& tx, const UpstreamAccount& account,
                                           bool signup_open, const EventSource& source,
                                           Millis now) {
  if (auto link = tx.identities().by_subject(account.provider, account.subject))
    return through_known_link(tx, *link, now);
  if (!account.email.empty()) {
    if (std::optional<UserRecord> user = tx.users().by_email(account.email))
      return through_email(tx, account, *user, source, now);
  }
  if (!signup_open) return UpstreamSignIn{Outcome::signup_closed, std::nullopt, {}};
  if (account.email.empty()) return UpstreamSignIn{Outcome::no_email, std::nullopt, {}};
  return by_signup(tx, account, source, now);
}

}  // namespace

UpstreamSignIn resolve_upstream_sign_in(Transaction& tx, const UpstreamAccount& given,
                                        bool signup_open, const EventSource& source, Millis now) {
  const UpstreamAccount account = usable(given);
  if (auto decided = resolve_once(tx, account, signup_open, source, now)) return *decided;
  if (auto decided = resolve_once(tx, account, signup_open, source, now)) return *decided;
  throw StoreError("upstream sign-in raced twice");
}

boost::asio::awaitable<UpstreamSignIn> resolve_upstream_sign_in(AuthContext& ctx,
                                                                const UpstreamAccount& account,
                                                                bool signup_open,
                                                                const EventSource& source) {
  UpstreamSignIn result;
  auto work = [&](Transaction& tx) {
    result = resolve_upstream_sign_in(tx, account, signup_open, source, now_millis());
  };
  if (co_await ctx.db.write(work) != StoreStatus::ok) co_return UpstreamSignIn{};
  co_return result;
}

LinkOutcome link_identity(Transaction& tx, std::string_view user_id, const UpstreamAccount& given,
                          const EventSource& source, Millis now) {
  const UpstreamAccount account = usable(given);
  if (!tx.users().by_id(user_id)) return LinkOutcome::no_account;  // locked on PostgreSQL
  for (int pass = 0; pass < 2; ++pass) {
    if (auto link = tx.identities().by_subject(account.provider, account.subject))
      return link->user_id == user_id ? LinkOutcome::already_linked_here
                                      : LinkOutcome::linked_to_another_account;
    IdentityRecord link = new_link(user_id, account, now);
    if (tx.identities().insert(link)) {
      record_linked(tx, source, link, "account", now);
      return LinkOutcome::linked;
    }
  }
  throw StoreError("upstream identity link raced twice");
}

boost::asio::awaitable<LinkOutcome> link_identity(AuthContext& ctx, const std::string& user_id,
                                                  const UpstreamAccount& account,
                                                  const EventSource& source) {
  LinkOutcome outcome = LinkOutcome::unavailable;
  auto work = [&](Transaction& tx) {
    outcome = link_identity(tx, user_id, account, source, now_millis());
  };
  if (co_await ctx.db.write(work) != StoreStatus::ok) co_return LinkOutcome::unavailable;
  co_return outcome;
}

}  // namespace authd
