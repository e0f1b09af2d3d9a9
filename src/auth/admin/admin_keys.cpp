#include "auth/admin/admin_keys.hpp"

#include "core/wipe.hpp"
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

namespace {

constexpr std::string_view kKeyNameRule = "name: 1 to 64 characters of A-Z a-z 0-9 . _ -";
constexpr std::string_view kNoDatabase = "the database did not answer";

// One key's creation, shared by the CLI and the admin API: `insert` is
// the record's insertion in a write transaction, true when it was made.
struct KeyCreation {
  std::string key;
  AdminKeyRecord record;
  bool inserted = false;

  KeyCreation(std::string_view name, AdminScope scope)
      : key(new_secret_token(kAdminKeyPrefix)),
        record{std::string(name), sha256(key), std::string(admin_scope_name(scope)), now_millis(),
               std::nullopt} {}

  void insert(Transaction& tx, const EventSource& source) {
    inserted = tx.admin_keys().insert(record);
    if (inserted)
      record_event(tx, source, "admin_key.created", std::nullopt,
                   {{"name", record.name}, {"scope", record.scope}}, record.created_at);
  }

  AdminKeyResult result(StoreStatus status) {
    AdminKeyResult result;
    if (status != StoreStatus::ok) {
      result.message = kNoDatabase;
    } else if (!inserted) {
      result.kind = AdminKeyResult::Kind::exists;
      result.message = "an admin key with this name exists";
    } else {
      result.kind = AdminKeyResult::Kind::ok;
      result.key = std::move(key);  // the caller's to show once, then wipe
      result.keys.push_back(record);
      return result;
    }
    wipe(key);
    return result;
  }
};

AdminKeyResult invalid_name() {
  AdminKeyResult result;
  result.kind = AdminKeyResult::Kind::invalid;
  result.message = kKeyNameRule;
  return result;
}

void revoke_in(Transaction& tx, std::string_view name, const EventSource& source, bool& revoked) {
  revoked = tx.admin_keys().revoke(name);
  if (revoked)
    record_event(tx, source, "admin_key.revoked", std::nullopt, {{"name", name}}, now_millis());
}

AdminKeyResult revoked_result(StoreStatus status, bool revoked) {
  AdminKeyResult result;
  if (status != StoreStatus::ok) {
    result.message = kNoDatabase;
    return result;
  }
  result.kind = revoked ? AdminKeyResult::Kind::ok : AdminKeyResult::Kind::not_found;
  if (!revoked) result.message = "no admin key with this name";
  return result;
}

}  // namespace

AdminKeyResult create_admin_key(Store& store, std::string_view name, AdminScope scope,
                                const EventSource& source) {
  if (!is_valid_admin_key_name(name)) return invalid_name();
  KeyCreation creation(name, scope);
  return creation.result(
      store.run(Store::Mode::write, [&](Transaction& tx) { creation.insert(tx, source); }));
}

boost::asio::awaitable<AdminKeyResult> create_admin_key(AuthContext& ctx, std::string_view name,
                                                        AdminScope scope,
                                                        const EventSource& source) {
  if (!is_valid_admin_key_name(name)) co_return invalid_name();
  KeyCreation creation(name, scope);
  auto insert = [&](Transaction& tx) { creation.insert(tx, source); };
  StoreStatus status = co_await ctx.db.write(insert);
  co_return creation.result(status);
}

boost::asio::awaitable<AdminKeyResult> list_admin_keys(AuthContext& ctx) {
  AdminKeyResult result;
  auto list = [&](Transaction& tx) { result.keys = tx.admin_keys().list(); };
  if (co_await ctx.db.read(list) != StoreStatus::ok) {
    result.message = kNoDatabase;
    co_return result;
  }
  result.kind = AdminKeyResult::Kind::ok;
  co_return result;
}

boost::asio::awaitable<AdminKeyResult> revoke_admin_key(AuthContext& ctx, std::string_view name,
                                                        const EventSource& source) {
  bool revoked = false;
  auto revoke = [&](Transaction& tx) { revoke_in(tx, name, source, revoked); };
  StoreStatus status = co_await ctx.db.write(revoke);
  co_return revoked_result(status, revoked);
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
  bool revoked = false;
  StoreStatus status =
      store.run(Store::Mode::write, [&](Transaction& tx) { revoke_in(tx, name, source, revoked); });
  return revoked_result(status, revoked);
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
