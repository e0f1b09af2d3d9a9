// The admin API's operations on accounts (interface.md 10.4): create, read,
// list, patch, set a password or a stored hash, erase, and end sessions;
// each change with its events (interface.md 14.1), from `source`.
// The API layer has checked each member's shape and rules (400s); these
// decide what needs the database: unknown ids (404), taken e-mails (409),
// and what a change revokes. Pure domain: no HTTP, no SQL.
#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <boost/asio/awaitable.hpp>

#include "auth/context.hpp"
#include "auth/events/events.hpp"
#include "store/records.hpp"

namespace authd {

// A member of a request that may be absent, null (clear it) or set.
template <class T>
struct Settable {
  bool present = false;
  std::optional<T> value;  // null when present and cleared
};

// The profile members of POST and PATCH /admin/users. `email` is already
// canonical. A boolean's presence is its optional's.
struct AdminUserFields {
  std::optional<std::string> email;
  Settable<std::string> display_name;
  Settable<std::string> phone;
  Settable<std::string> photo_url;
  std::optional<bool> email_verified;
  std::optional<bool> phone_verified;
  std::optional<bool> disabled;
};

// How an account gets its password from an operator: a password to hash
// (wiped once hashed), a stored hash to keep as it is (a legacy hash,
// crypto/legacy_hash.hpp, already checked), or neither (only a reset will
// give it one).
struct AdminPassword {
  std::optional<std::string> password;
  std::optional<std::string> hash;
};

struct AdminUserOutcome {
  enum class Kind {
    ok,
    not_found,
    exists,        // the e-mail has an account: 409
    bad_password,  // the password equals the account's e-mail: 400
    bad_hash,      // a passwordHash of a kind refused (interface.md 10.5): 400, `problem`
    busy,          // the hashing pool is saturated: 503
    unavailable,
  } kind = Kind::unavailable;
  UserRecord user;
  std::string problem;  // bad_hash: the 400's detail
};

// Applies `fields` to `user` as of `now`; true when anything changed. The
// e-mail is not touched (a change of address has consequences the caller
// handles). Shared by the API and `authd user import --update`.
bool apply_admin_fields(UserRecord& user, const AdminUserFields& fields, Millis now);

boost::asio::awaitable<AdminUserOutcome> create_admin_user(AuthContext& ctx,
                                                           const AdminUserFields& fields,
                                                           AdminPassword& password,
                                                           const EventSource& source);
boost::asio::awaitable<AdminUserOutcome> read_admin_user(AuthContext& ctx, const std::string& id);
boost::asio::awaitable<AdminUserOutcome> find_admin_user(AuthContext& ctx,
                                                         const std::string& canonical_email);
boost::asio::awaitable<AdminUserOutcome> patch_admin_user(AuthContext& ctx, const std::string& id,
                                                          const AdminUserFields& fields,
                                                          const EventSource& source);
boost::asio::awaitable<AdminUserOutcome> set_admin_user_password(AuthContext& ctx,
                                                                 const std::string& id,
                                                                 AdminPassword& password,
                                                                 const EventSource& source);
// Erases the account and everything that refers to it (auth/admin/erasure.hpp).
boost::asio::awaitable<AdminUserOutcome> delete_admin_user(AuthContext& ctx, const std::string& id,
                                                           const EventSource& source);

struct AdminUserPage {
  bool ok = false;
  std::vector<UserRecord> users;
  std::optional<std::string> next_cursor;  // the last id shown, when more follow
};
// The users after the id `after` (empty: from the first), in creation order.
boost::asio::awaitable<AdminUserPage> list_admin_users(AuthContext& ctx, const std::string& after,
                                                       int limit);

struct AdminSessions {
  enum class Kind { ok, not_found, unavailable } kind = Kind::unavailable;
  std::vector<SessionRecord> sessions;  // live, newest first
};
boost::asio::awaitable<AdminSessions> list_user_sessions(AuthContext& ctx, const std::string& id);
boost::asio::awaitable<AdminSessions> revoke_user_sessions(AuthContext& ctx, const std::string& id,
                                                           const EventSource& source);
boost::asio::awaitable<AdminSessions> revoke_session(AuthContext& ctx, const std::string& public_id,
                                                     const EventSource& source);
// Removes every second factor of the account, pending or confirmed, and
// its recovery codes (interface.md 10.4, 12.4).
boost::asio::awaitable<AdminSessions> reset_user_mfa(AuthContext& ctx, const std::string& id,
                                                     const EventSource& source);

// The second factors of these accounts, for the admin view's "mfa"
// (interface.md 10.3, 16.6.3): a confirmed TOTP factor, passkeys. An account
// with neither is left out. Nothing when the store failed.
struct AccountFactors {
  bool totp = false;
  bool passkeys = false;
};
boost::asio::awaitable<std::optional<std::map<std::string, AccountFactors>>> second_factors_of(
    AuthContext& ctx, const std::vector<std::string>& ids);

}  // namespace authd
