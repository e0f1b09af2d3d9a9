#include "auth/admin/admin_users.hpp"

#include <algorithm>

#include "auth/admin/erasure.hpp"
#include "auth/credentials/password_rules.hpp"
#include "auth/events/account_events.hpp"
#include "auth/events/notices.hpp"
#include "auth/login/hash_admission.hpp"
#include "auth/login/throttle.hpp"
#include "auth/mail_flows/mailed_links.hpp"
#include "auth/oidc/user_tokens.hpp"
#include "auth/second_factor/second_factor.hpp"
#include "core/wipe.hpp"
#include "crypto/hashing_pool.hpp"
#include "crypto/random.hpp"
#include "store/database.hpp"

namespace authd {
namespace {

using Kind = AdminUserOutcome::Kind;

AdminUserOutcome outcome_of(Kind kind, std::optional<UserRecord> user = std::nullopt) {
  AdminUserOutcome outcome;
  outcome.kind = kind;
  if (user) outcome.user = std::move(*user);
  return outcome;
}

template <class T>
bool set_field(std::optional<T>& field, const Settable<T>& value) {
  if (!value.present || field == value.value) return false;
  field = value.value;
  return true;
}

// A verification flag: true stamps the time (once), false clears it.
bool set_verified(std::optional<Millis>& at, std::optional<bool> verified, Millis now) {
  if (!verified || *verified == at.has_value()) return false;
  at = *verified ? std::optional<Millis>(now) : std::nullopt;
  return true;
}

// The stored hash an operator's password becomes: the given hash as it is,
// or the password hashed on the pool. Nothing (busy) when the pool is full;
// an empty optional inside when the account is to have no password.
// A given hash is checked first (auth/login/hash_admission.hpp): `refused`
// holds why it is not taken.
struct HashedPassword {
  bool busy = false;
  bool unavailable = false;
  std::string refused;
  std::optional<std::string> phc;
};

boost::asio::awaitable<HashedPassword> hash_admin_password(AuthContext& ctx,
                                                           AdminPassword& password) {
  HashedPassword hashed;
  if (password.hash) {
    HashAdmission admission = co_await admit_stored_hash(ctx, *password.hash);
    hashed.busy = admission.kind == HashAdmission::Kind::busy;
    hashed.unavailable = admission.kind == HashAdmission::Kind::unavailable;
    hashed.refused = std::move(admission.problem);
    if (admission.kind == HashAdmission::Kind::admitted) hashed.phc = std::move(*password.hash);
  } else if (password.password) {
    std::optional<std::string> phc = co_await ctx.hashing.hash(*password.password);
    wipe(*password.password);
    if (!phc) hashed.busy = true;
    hashed.phc = std::move(phc);
  }
  co_return hashed;
}

// The outcome of a password that could not be hashed or taken, if so.
std::optional<AdminUserOutcome> hashing_failure(const HashedPassword& hashed) {
  if (hashed.busy) return outcome_of(Kind::busy);
  if (hashed.unavailable) return outcome_of(Kind::unavailable);
  if (hashed.refused.empty()) return std::nullopt;
  AdminUserOutcome refused = outcome_of(Kind::bad_hash);
  refused.problem = hashed.refused;
  return refused;
}

// Every change moves updatedAt forward, even within the millisecond of the
// previous one (interface.md 2.6), as Accounts::update does.
Millis change_time(const UserRecord& user) { return std::max(now_millis(), user.updated_at + 1); }

// What user.created says of the new account: whether it can log in yet.
nlohmann::json created_detail(const UserRecord& user) {
  return {{"passwordSet", user.password_hash.has_value()}, {"disabled", user.disabled}};
}

// How an operator's password.changed was set: a password hashed here, or a
// stored hash imported as it is (never the hash itself).
const char* hashed_kind(const AdminPassword& password) {
  return password.hash ? "imported_hash" : "password";
}

}  // namespace

bool apply_admin_fields(UserRecord& user, const AdminUserFields& fields, Millis now) {
  bool changed = false;
  changed |= set_field(user.display_name, fields.display_name);
  changed |= set_field(user.phone, fields.phone);
  changed |= set_field(user.photo_url, fields.photo_url);
  changed |= set_verified(user.email_verified_at, fields.email_verified, now);
  changed |= set_verified(user.phone_verified_at, fields.phone_verified, now);
  if (fields.disabled && *fields.disabled != user.disabled) {
    user.disabled = *fields.disabled;
    changed = true;
  }
  return changed;
}

boost::asio::awaitable<AdminUserOutcome> create_admin_user(AuthContext& ctx,
                                                           const AdminUserFields& fields,
                                                           AdminPassword& password,
                                                           const EventSource& source) {
  if (password.password) {
    // A taken address is answered before a hash is spent on it (the
    // insert below still decides, should another request win meanwhile).
    AdminUserOutcome taken = co_await find_admin_user(ctx, *fields.email);
    if (taken.kind != Kind::not_found) {
      wipe(*password.password);
      co_return outcome_of(taken.kind == Kind::ok ? Kind::exists : taken.kind);
    }
  }
  HashedPassword hashed = co_await hash_admin_password(ctx, password);
  if (std::optional<AdminUserOutcome> failed = hashing_failure(hashed)) co_return *failed;

  Millis now = now_millis();
  UserRecord user;
  user.id = new_account_id(now);
  user.email = *fields.email;
  user.password_hash = std::move(hashed.phc);
  user.created_at = user.updated_at = now;
  apply_admin_fields(user, fields, now);
  bool inserted = false;
  auto insert = [&](Transaction& tx) {
    inserted = tx.users().insert(user);
    if (inserted) record_event(tx, source, "user.created", user.id, created_detail(user), now);
  };
  if (co_await ctx.db.write(insert) != StoreStatus::ok) co_return outcome_of(Kind::unavailable);
  co_return inserted ? outcome_of(Kind::ok, std::move(user)) : outcome_of(Kind::exists);
}

boost::asio::awaitable<AdminUserOutcome> read_admin_user(AuthContext& ctx, const std::string& id) {
  std::optional<UserRecord> user;
  auto read = [&](Transaction& tx) { user = tx.users().by_id(id); };
  if (co_await ctx.db.read(read) != StoreStatus::ok) co_return outcome_of(Kind::unavailable);
  co_return user ? outcome_of(Kind::ok, std::move(user)) : outcome_of(Kind::not_found);
}

boost::asio::awaitable<AdminUserOutcome> find_admin_user(AuthContext& ctx,
                                                         const std::string& canonical_email) {
  std::optional<UserRecord> user;
  auto read = [&](Transaction& tx) { user = tx.users().by_email(canonical_email); };
  if (co_await ctx.db.read(read) != StoreStatus::ok) co_return outcome_of(Kind::unavailable);
  co_return user ? outcome_of(Kind::ok, std::move(user)) : outcome_of(Kind::not_found);
}

boost::asio::awaitable<AdminUserOutcome> patch_admin_user(AuthContext& ctx, const std::string& id,
                                                          const AdminUserFields& fields,
                                                          const EventSource& source) {
  Kind kind = Kind::ok;
  std::optional<UserRecord> user;
  auto patch = [&](Transaction& tx) {
    kind = Kind::ok;  // a transaction may run again: all anew
    user = tx.users().by_id(id);
    if (!user) {
      kind = Kind::not_found;
      return;
    }
    Millis now = change_time(*user);
    const UserRecord before = *user;
    const std::string& old_email = before.email;
    bool new_email = fields.email && *fields.email != user->email;
    if (new_email) {
      // The common case, without a write; not locking the address's holder,
      // which its own change may hold while it waits for this account (8.2).
      if (tx.users().email_taken(*fields.email)) {
        kind = Kind::exists;
        return;
      }
      user->email = *fields.email;
      user->email_verified_at.reset();  // a new address is not proved yet
    }
    bool changed = apply_admin_fields(*user, fields, now) || new_email;
    if (changed) {
      user->updated_at = now;
      if (new_email && !tx.users().update_unless_email_taken(*user)) {
        kind = Kind::exists;  // taken meanwhile (another instance): nothing written
        return;
      }
      if (!new_email) tx.users().update(*user);
    }
    if (new_email) {
      // What was mailed to the old address must not work any more: reset
      // tokens and queued mails go; and the old address's counters, which
      // would otherwise keep it in the database after the account moved.
      void_mailed_links(tx, user->id);
      tx.outbox().remove_links_for(user->id, old_email);
      tx.throttle().delete_events(login_email_key(old_email));
      tx.events().forget_repeat(login_email_key(old_email));
      tx.throttle().delete_events(reset_mail_key(old_email));
      tx.throttle().delete_events(signup_mail_key(old_email));
      tx.throttle().delete_events(signin_mail_key(old_email));
      // After the mails above went: the old address is told (14.3).
      queue_notice(tx, ctx.policy.notify, {NoticeTopic::email_changed, NoticeActor::admin}, *user,
                   old_email, now);
    }
    if (fields.disabled.value_or(false)) {
      // interface.md 6 /logout 4 and 7.2: disabling revokes every session
      // and voids reset tokens and sign-in mails (19.2) (again, harmlessly,
      // if it was disabled).
      tx.sessions().delete_of_user(user->id);
      revoke_oauth_tokens_of_user(tx, user->id);  // 17.10
      void_mailed_links(tx, user->id);
    }
    if (changed) record_account_changes(tx, source, before, *user, now);
  };
  if (co_await ctx.db.write(patch) != StoreStatus::ok) co_return outcome_of(Kind::unavailable);
  co_return outcome_of(kind, std::move(user));
}

boost::asio::awaitable<AdminUserOutcome> set_admin_user_password(AuthContext& ctx,
                                                                 const std::string& id,
                                                                 AdminPassword& password,
                                                                 const EventSource& source) {
  WipeOnExit wipe_password(password.password);
  // The account first: an unknown id is 404, and a password equal to the
  // account's e-mail is refused (interface.md 3.3), before any hashing.
  AdminUserOutcome found = co_await read_admin_user(ctx, id);
  if (found.kind != Kind::ok) co_return found;
  if (password.password && new_password_problem(*password.password, found.user.email))
    co_return outcome_of(Kind::bad_password);

  const char* stored = hashed_kind(password);
  HashedPassword hashed = co_await hash_admin_password(ctx, password);
  if (std::optional<AdminUserOutcome> failed = hashing_failure(hashed)) co_return *failed;
  Kind kind = Kind::ok;
  std::optional<UserRecord> user;
  auto set = [&](Transaction& tx) {
    kind = Kind::ok;
    user = tx.users().by_id(id);
    if (!user) {
      kind = Kind::not_found;
      return;
    }
    user->password_hash = hashed.phc;
    user->updated_at = change_time(*user);
    tx.users().update(*user);
    // As a reset: every session and OAuth token (17.10) ends, reset tokens
    // are void.
    tx.sessions().delete_of_user(user->id);
    revoke_oauth_tokens_of_user(tx, user->id);
    void_mailed_links(tx, user->id);
    record_event(tx, source, "password.changed", user->id, {{"stored", stored}}, user->updated_at);
    queue_notice(tx, ctx.policy.notify, {NoticeTopic::password_changed, NoticeActor::admin}, *user,
                 user->email, user->updated_at);
  };
  if (co_await ctx.db.write(set) != StoreStatus::ok) co_return outcome_of(Kind::unavailable);
  co_return outcome_of(kind, std::move(user));
}

boost::asio::awaitable<AdminUserOutcome> delete_admin_user(AuthContext& ctx, const std::string& id,
                                                           const EventSource& source) {
  std::optional<UserRecord> user;
  auto erase = [&](Transaction& tx) {
    user = tx.users().by_id(id);
    if (!user) return;
    erase_account(tx, *user);
    record_event(tx, source, "user.deleted", user->id, nlohmann::json::object(), now_millis());
  };
  if (co_await ctx.db.write(erase) != StoreStatus::ok) co_return outcome_of(Kind::unavailable);
  co_return outcome_of(user ? Kind::ok : Kind::not_found);
}

boost::asio::awaitable<AdminUserPage> list_admin_users(AuthContext& ctx, const std::string& after,
                                                       int limit) {
  AdminUserPage page;
  // One more than asked: whether another page follows, without a count.
  auto read = [&](Transaction& tx) { page.users = tx.users().page_after(after, limit + 1); };
  if (co_await ctx.db.read(read) != StoreStatus::ok) co_return page;
  page.ok = true;
  if (page.users.size() > static_cast<std::size_t>(limit)) {
    page.users.resize(static_cast<std::size_t>(limit));
    page.next_cursor = page.users.back().id;
  }
  co_return page;
}

namespace {

// Runs `work(tx, user)` for the account `id` in a write (or read)
// transaction; not_found when there is no such account.
template <class Work>
boost::asio::awaitable<AdminSessions> with_account(AuthContext& ctx, const std::string& id,
                                                   bool writes, Work& work) {
  AdminSessions result;
  bool found = false;
  auto run = [&](Transaction& tx) {
    std::optional<UserRecord> user = tx.users().by_id(id);
    found = user.has_value();
    if (found) work(tx, *user, result);
  };
  StoreStatus status = writes ? co_await ctx.db.write(run) : co_await ctx.db.read(run);
  if (status != StoreStatus::ok) co_return result;
  result.kind = found ? AdminSessions::Kind::ok : AdminSessions::Kind::not_found;
  co_return result;
}

}  // namespace

// The work lambdas are named: GCC 12 destroys a temporary argument of a
// coroutine call inside co_await too early (core/offload.hpp).
boost::asio::awaitable<AdminSessions> list_user_sessions(AuthContext& ctx, const std::string& id) {
  Millis now = now_millis();
  auto list = [now](Transaction& tx, const UserRecord& user, AdminSessions& out) {
    out.sessions = tx.sessions().list_live_of_user(user.id, now);
  };
  AdminSessions result = co_await with_account(ctx, id, false, list);
  co_return result;
}

boost::asio::awaitable<AdminSessions> revoke_user_sessions(AuthContext& ctx, const std::string& id,
                                                           const EventSource& source) {
  auto revoke = [&source](Transaction& tx, const UserRecord& user, AdminSessions&) {
    tx.sessions().delete_of_user(user.id);
    record_event(tx, source, "session.revoked", user.id, {{"all", true}}, now_millis());
  };
  AdminSessions result = co_await with_account(ctx, id, true, revoke);
  co_return result;
}

boost::asio::awaitable<AdminSessions> reset_user_mfa(AuthContext& ctx, const std::string& id,
                                                     const EventSource& source) {
  auto remove = [&ctx, &source](Transaction& tx, const UserRecord& user, AdminSessions&) {
    remove_second_factors(tx, source, ctx.policy.notify, user, now_millis());
  };
  AdminSessions result = co_await with_account(ctx, id, true, remove);
  co_return result;
}

// Two statements for each account of a page (up to 1,000): on the side
// thread, so that a listing never holds up a connection thread and the
// requests it serves for its thousands of round trips (Database::read_aside).
boost::asio::awaitable<std::optional<std::map<std::string, AccountFactors>>> second_factors_of(
    AuthContext& ctx, const std::vector<std::string>& ids) {
  std::map<std::string, AccountFactors> factors;
  auto read = [&](Transaction& tx) {
    factors.clear();
    for (const std::string& id : ids) {
      std::optional<TotpFactorRecord> factor = tx.second_factors().totp_of(id);
      AccountFactors found{factor && factor->confirmed(), tx.passkeys().count_of(id) > 0};
      if (found.totp || found.passkeys) factors[id] = found;
    }
  };
  if (co_await ctx.db.read_aside(read) != StoreStatus::ok) co_return std::nullopt;
  co_return factors;
}

boost::asio::awaitable<AdminSessions> revoke_session(AuthContext& ctx, const std::string& public_id,
                                                     const EventSource& source) {
  AdminSessions result;
  bool revoked = false;
  Millis now = now_millis();
  auto revoke = [&](Transaction& tx) {
    std::optional<std::string> user_id = tx.sessions().revoke_by_public_id(public_id, now);
    revoked = user_id.has_value();
    if (revoked)
      record_event(tx, source, "session.revoked", user_id, {{"sessionId", public_id}}, now);
  };
  if (co_await ctx.db.write(revoke) != StoreStatus::ok) co_return result;
  result.kind = revoked ? AdminSessions::Kind::ok : AdminSessions::Kind::not_found;
  co_return result;
}

}  // namespace authd
