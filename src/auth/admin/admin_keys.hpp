// Operators' keys for the admin API (interface.md 10.2): `authdak_` and 256
// bits from the CSPRNG, shown once when created, stored only as their
// SHA-256 digest under a name, with a scope: `read` keys may only read.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <boost/asio/awaitable.hpp>

#include "auth/context.hpp"
#include "auth/events/events.hpp"
#include "store/records.hpp"
#include "store/store.hpp"

namespace authd {

inline constexpr std::string_view kAdminKeyPrefix = "authdak_";

enum class AdminScope { read, write };

std::optional<AdminScope> parse_admin_scope(std::string_view text);
std::string_view admin_scope_name(AdminScope scope);

// 1 to 64 characters of A-Z a-z 0-9 . _ -: a name shows in logs and in the
// events' actor ("admin:NAME").
bool is_valid_admin_key_name(std::string_view name);

struct AdminKeyResult {
  enum class Kind { ok, invalid, exists, not_found, unavailable } kind = Kind::unavailable;
  std::string message;               // for the operator
  std::string key;                   // create: the key itself, to be shown once
  std::vector<AdminKeyRecord> keys;  // list
};

// The CLI's side (`authd admin-key create|list|revoke`): synchronous, on
// the store.
AdminKeyResult create_admin_key(Store& store, std::string_view name, AdminScope scope,
                                const EventSource& source);
AdminKeyResult list_admin_keys(Store& store);
AdminKeyResult revoke_admin_key(Store& store, std::string_view name, const EventSource& source);

// The admin API's side (interface.md 10.2.9, the console of 21.1): the
// same, on the server's database, recorded with `source`'s actor.
boost::asio::awaitable<AdminKeyResult> create_admin_key(AuthContext& ctx, std::string_view name,
                                                        AdminScope scope,
                                                        const EventSource& source);
boost::asio::awaitable<AdminKeyResult> list_admin_keys(AuthContext& ctx);
boost::asio::awaitable<AdminKeyResult> revoke_admin_key(AuthContext& ctx, std::string_view name,
                                                        const EventSource& source);

// The server's side: who is calling with `key`.
struct AdminCaller {
  enum class Kind { ok, invalid_key, unavailable } kind = Kind::unavailable;
  std::string name;
  AdminScope scope = AdminScope::read;
};

// Looks the key up by its digest (one indexed read). The key's last use is
// written at most once a minute (kLastUseResolution), so that a read-only
// admin client does not turn every request into a commit.
boost::asio::awaitable<AdminCaller> authenticate_admin(AuthContext& ctx, std::string_view key);

inline constexpr Millis kLastUseResolution = 60'000;

}  // namespace authd
