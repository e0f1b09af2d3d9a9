#include "auth/upstream/identities.hpp"

#include "auth/sessions/session.hpp"
#include "crypto/random.hpp"
#include "store/database.hpp"

namespace authd {
namespace {

void record_unlinked(Transaction& tx, const EventSource& source, const IdentityRecord& link,
                     const char* reason, Millis now) {
  nlohmann::json detail = {{"identityId", link.id}, {"provider", link.provider}};
  if (reason != nullptr) detail["reason"] = reason;
  record_event(tx, source, "identity.unlinked", link.user_id, detail, now);
}

}  // namespace

std::int64_t other_sign_in_ways(Transaction& tx, const AuthPolicy& policy, const UserRecord& user,
                                std::string_view except) {
  std::int64_t ways = user.password_hash ? 1 : 0;
  if (policy.email_signin) ++ways;
  if (!policy.webauthn.id.empty()) ways += tx.passkeys().count_of(user.id);
  for (const IdentityRecord& link : tx.identities().of_user(user.id))
    if (link.id != except) ++ways;
  return ways;
}

boost::asio::awaitable<IdentityList> list_own_identities(AuthContext& ctx,
                                                         const std::string& token) {
  IdentityList list;
  Sha256Digest digest = sha256(token);
  Millis now = now_millis();
  bool known = false;
  auto work = [&](Transaction& tx) {
    std::optional<UserRecord> user = live_session_user(tx, digest, now);
    known = user.has_value();
    if (known) list.identities = tx.identities().of_user(user->id);
  };
  if (co_await ctx.db.read(work) != StoreStatus::ok) co_return list;
  list.kind = known ? IdentityList::Kind::ok : IdentityList::Kind::invalid_token;
  co_return list;
}

boost::asio::awaitable<IdentityRemoval> unlink_own_identity(AuthContext& ctx,
                                                            const std::string& token,
                                                            std::string_view id,
                                                            const EventSource& source) {
  using Kind = IdentityRemoval::Kind;
  IdentityRemoval removal;
  Sha256Digest digest = sha256(token);
  auto work = [&](Transaction& tx) {
    Millis now = now_millis();
    // The user's row is locked (PostgreSQL) before the ways are counted, so
    // that two removals of an account's last two links cannot both pass.
    std::optional<UserRecord> user = live_session_user(tx, digest, now);
    if (!user) {
      removal.kind = Kind::invalid_token;
      return;
    }
    std::optional<IdentityRecord> link = tx.identities().by_id(id);
    if (!link || link->user_id != user->id) {
      removal.kind = Kind::not_found;
      return;
    }
    if (other_sign_in_ways(tx, ctx.policy, *user, link->id) == 0) {
      removal.kind = Kind::last_way;
      return;
    }
    tx.identities().remove(link->id);
    record_unlinked(tx, source, *link, nullptr, now);
    removal.kind = Kind::ok;
  };
  if (co_await ctx.db.write(work) != StoreStatus::ok) co_return IdentityRemoval{};
  co_return removal;
}

boost::asio::awaitable<IdentityList> list_user_identities(AuthContext& ctx,
                                                          const std::string& user_id) {
  IdentityList list;
  bool known = false;
  auto work = [&](Transaction& tx) {
    known = tx.users().by_id(user_id).has_value();
    if (known) list.identities = tx.identities().of_user(user_id);
  };
  if (co_await ctx.db.read(work) != StoreStatus::ok) co_return list;
  list.kind = known ? IdentityList::Kind::ok : IdentityList::Kind::not_found;
  co_return list;
}

boost::asio::awaitable<IdentityRemoval> admin_unlink_identity(AuthContext& ctx, std::string_view id,
                                                              const EventSource& source) {
  IdentityRemoval removal;
  auto work = [&](Transaction& tx) {
    std::optional<IdentityRecord> link = tx.identities().by_id(id);
    if (!link || !tx.identities().remove(link->id)) {
      removal.kind = IdentityRemoval::Kind::not_found;
      return;
    }
    record_unlinked(tx, source, *link, nullptr, now_millis());
    removal.kind = IdentityRemoval::Kind::ok;
  };
  if (co_await ctx.db.write(work) != StoreStatus::ok) co_return IdentityRemoval{};
  co_return removal;
}

std::int64_t unlink_on_first_proof(Transaction& tx, const EventSource& source,
                                   const std::string& user_id, Millis now) {
  std::vector<IdentityRecord> links = tx.identities().of_user(user_id);
  for (const IdentityRecord& link : links) {
    tx.identities().remove(link.id);
    record_unlinked(tx, source, link, "address_proved", now);
  }
  return static_cast<std::int64_t>(links.size());
}

}  // namespace authd
