#include "auth/console/operators.hpp"

#include <algorithm>

#include "auth/login/login.hpp"
#include "crypto/random.hpp"
#include "store/database.hpp"

namespace authd {
namespace {

constexpr std::string_view kCliUnavailable = "the database did not answer";

// How often a console session's idle end is written: a tenth of the idle
// time, at most a minute, so that browsing does not commit per request.
Millis touch_resolution(Duration idle) { return std::min<Millis>(idle.count() / 10, 60'000); }

bool is_live(const ConsoleSessionRecord& session, Millis now) {
  return session.idle_until > now && session.expires_at > now;
}

}  // namespace

std::string operator_actor(std::string_view email) {
  std::string actor = "operator:";
  actor += email;
  return actor;
}

OperatorResult grant_operator(Store& store, std::string_view email, AdminScope scope,
                              const EventSource& source) {
  OperatorResult result;
  bool found = false;
  auto grant = [&](Transaction& tx) {
    std::optional<UserRecord> user = tx.users().by_email(email);
    found = user.has_value();
    if (!found) return;
    Millis now = now_millis();
    const std::string scope_name(admin_scope_name(scope));
    tx.operators().grant({user->id, scope_name, now, source.actor});
    record_event(tx, source, "operator.granted", user->id, {{"scope", scope_name}}, now);
  };
  if (store.run(Store::Mode::write, grant) != StoreStatus::ok) {
    result.message = kCliUnavailable;
    return result;
  }
  result.kind = found ? OperatorResult::Kind::ok : OperatorResult::Kind::not_found;
  if (!found) result.message = "no account with this e-mail";
  return result;
}

OperatorResult revoke_operator(Store& store, std::string_view email, const EventSource& source) {
  OperatorResult result;
  bool revoked = false;
  auto revoke = [&](Transaction& tx) {
    std::optional<UserRecord> user = tx.users().by_email(email);
    revoked = user && tx.operators().revoke(user->id);
    if (revoked) record_event(tx, source, "operator.revoked", user->id, {}, now_millis());
  };
  if (store.run(Store::Mode::write, revoke) != StoreStatus::ok) {
    result.message = kCliUnavailable;
    return result;
  }
  result.kind = revoked ? OperatorResult::Kind::ok : OperatorResult::Kind::not_found;
  if (!revoked) result.message = "no operator with this e-mail";
  return result;
}

OperatorResult list_operators(Store& store) {
  OperatorResult result;
  auto list = [&](Transaction& tx) {
    result.listing.clear();  // a transaction may run again
    for (OperatorRecord& grant : tx.operators().list()) {
      std::optional<UserRecord> user = tx.users().by_id(grant.user_id);
      result.listing.push_back({user ? user->email : std::string(), std::move(grant)});
    }
  };
  if (store.run(Store::Mode::read, list) != StoreStatus::ok) {
    result.message = kCliUnavailable;
    return result;
  }
  result.kind = OperatorResult::Kind::ok;
  return result;
}

boost::asio::awaitable<ConsoleCaller> authenticate_console(AuthContext& ctx,
                                                           std::string_view token) {
  ConsoleCaller caller;
  if (token.substr(0, kConsoleTokenPrefix.size()) != kConsoleTokenPrefix) {
    caller.kind = ConsoleCaller::Kind::invalid;
    co_return caller;
  }
  const Sha256Digest digest = sha256(token);
  const Millis now = now_millis();
  std::optional<ConsoleSessionRecord> session;
  std::optional<UserRecord> user;
  std::optional<OperatorRecord> grant;
  auto read = [&](Transaction& tx) {
    user.reset();
    grant.reset();
    session = tx.operators().session_by_digest(digest);
    if (!session || !is_live(*session, now)) return;
    user = tx.users().by_id(session->user_id);
    grant = tx.operators().by_user(session->user_id);
  };
  if (co_await ctx.db.read(read) != StoreStatus::ok) co_return caller;
  if (!session || !is_live(*session, now) || !user || user->disabled || !grant) {
    caller.kind = ConsoleCaller::Kind::invalid;
    co_return caller;
  }
  const Millis idle_until = now + ctx.policy.console_idle.count();
  if (idle_until - session->idle_until >= touch_resolution(ctx.policy.console_idle)) {
    auto touch = [&](Transaction& tx) { tx.operators().touch_session(digest, idle_until); };
    if (co_await ctx.db.write(touch) != StoreStatus::ok) co_return caller;
  }
  caller.kind = ConsoleCaller::Kind::ok;
  caller.user_id = user->id;
  caller.email = user->email;
  caller.scope = parse_admin_scope(grant->scope).value_or(AdminScope::read);
  co_return caller;
}

boost::asio::awaitable<bool> end_console_session(AuthContext& ctx, std::string_view token,
                                                 const EventSource& source) {
  const Sha256Digest digest = sha256(token);
  auto end = [&](Transaction& tx) {
    std::optional<ConsoleSessionRecord> session = tx.operators().session_by_digest(digest);
    if (!session || !tx.operators().end_session(digest)) return;
    record_event(tx, source, "console.signed_out", session->user_id, {}, now_millis());
  };
  co_return co_await ctx.db.write(end) == StoreStatus::ok;
}

}  // namespace authd
