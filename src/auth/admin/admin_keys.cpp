#include "auth/admin/admin_keys.hpp"

#include "crypto/random.hpp"
#include "store/database.hpp"

namespace authd {

std::optional<AdminScope> parse_admin_scope(std::string_view text) {
  if (text == "read") return AdminScope::read;
  if (text == "write") return AdminScope::write;
  return std::nullopt;
}

std::string_view admin_scope_name(AdminScope scope) {
  return scope == AdminScope::write ? "write" : "read";
}

bool is_valid_admin_key_name(std::string_view name) {
  if (name.empty() || name.size() > 64) return false;
  for (char c : name) {
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '.' || c == '_' || c == '-';
    if (!ok) return false;
  }
  return true;
}

AdminKeyResult create_admin_key(Store& store, std::string_view name, AdminScope scope,
                                const EventSource& source) {
  AdminKeyResult result;
  if (!is_valid_admin_key_name(name)) {
    result.kind = AdminKeyResult::Kind::invalid;
    result.message = "name: 1 to 64 characters of A-Z a-z 0-9 . _ -";
    return result;
  }
  std::string key = new_secret_token(kAdminKeyPrefix);
  AdminKeyRecord record{std::string(name), sha256(key), std::string(admin_scope_name(scope)),
                        now_millis(), std::nullopt};
  bool inserted = false;
  if (store.run(Store::Mode::write, [&](Transaction& tx) {
        inserted = tx.admin_keys().insert(record);
        if (inserted)
          record_event(tx, source, "admin_key.created", std::nullopt,
                       {{"name", record.name}, {"scope", record.scope}}, record.created_at);
      }) != StoreStatus::ok) {
    result.message = "the database did not answer";
    return result;
  }
  if (!inserted) {
    result.kind = AdminKeyResult::Kind::exists;
    result.message = "an admin key with this name exists";
    return result;
  }
  result.kind = AdminKeyResult::Kind::ok;
  result.key = std::move(key);
  return result;
}

AdminKeyResult list_admin_keys(Store& store) {
  AdminKeyResult result;
  if (store.run(Store::Mode::read, [&](Transaction& tx) {
        result.keys = tx.admin_keys().list();
      }) != StoreStatus::ok) {
    result.message = "the database did not answer";
    return result;
  }
  result.kind = AdminKeyResult::Kind::ok;
  return result;
}

AdminKeyResult revoke_admin_key(Store& store, std::string_view name, const EventSource& source) {
  AdminKeyResult result;
  bool revoked = false;
  if (store.run(Store::Mode::write, [&](Transaction& tx) {
        revoked = tx.admin_keys().revoke(name);
        if (revoked)
          record_event(tx, source, "admin_key.revoked", std::nullopt, {{"name", name}},
                       now_millis());
      }) != StoreStatus::ok) {
    result.message = "the database did not answer";
    return result;
  }
  result.kind = revoked ? AdminKeyResult::Kind::ok : AdminKeyResult::Kind::not_found;
  if (!revoked) result.message = "no admin key with this name";
  return result;
}

boost::asio::awaitable<AdminCaller> authenticate_admin(AuthContext& ctx, std::string_view key) {
  AdminCaller caller;
  // Only keys of our own shape are looked up; the digest is compared by
  // the database's unique index, which holds digests, never keys.
  std::optional<AdminKeyRecord> found;
  if (key.substr(0, kAdminKeyPrefix.size()) == kAdminKeyPrefix) {
    const Sha256Digest digest = sha256(key);
    auto read = [&](Transaction& tx) { found = tx.admin_keys().by_digest(digest); };
    if (co_await ctx.db.read(read) != StoreStatus::ok) co_return caller;
  }
  if (!found) {
    caller.kind = AdminCaller::Kind::invalid_key;
    co_return caller;
  }
  Millis now = now_millis();
  if (!found->last_used_at || now - *found->last_used_at >= kLastUseResolution) {
    auto touch = [&](Transaction& tx) { tx.admin_keys().mark_used(found->name, now); };
    // A failed bookkeeping write does not refuse the request: the read
    // that follows will tell whether the database is there.
    co_await ctx.db.write(touch);
  }
  caller.kind = AdminCaller::Kind::ok;
  caller.name = found->name;
  caller.scope = parse_admin_scope(found->scope).value_or(AdminScope::read);
  co_return caller;
}

}  // namespace authd
