// The links of upstream identities as their owner and the operator see
// them (interface.md 18.4): listed and removed by the owner with a session
// (GET /identities, DELETE /identities/{id}), by the operator through the
// admin API (GET /admin/users/{id}/identities, DELETE
// /admin/identities/{id}). Each removal writes identity.unlinked.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include <boost/asio/awaitable.hpp>

#include "auth/context.hpp"
#include "auth/events/events.hpp"
#include "store/areas/identities.hpp"
#include "store/records.hpp"

namespace authd {

class Transaction;

struct IdentityList {
  enum class Kind { ok, invalid_token, not_found, unavailable } kind = Kind::unavailable;
  std::vector<IdentityRecord> identities;  // oldest first
};

struct IdentityRemoval {
  enum class Kind {
    ok,
    not_found,  // no such link, or (the owner's route) another account's
    last_way,   // the owner's route: the account could not sign in without it (409)
    invalid_token,
    unavailable,
  } kind = Kind::unavailable;
};

// How many ways the account has to sign in besides the link `except` (""
// for none): its password, its passkeys (while passkeys are served, 16.1),
// a mail (while --email-signin is on, 19) and its other links
// (docs/design/decisions/upstream-identity-providers.md).
std::int64_t other_sign_in_ways(Transaction& tx, const AuthPolicy& policy, const UserRecord& user,
                                std::string_view except);

boost::asio::awaitable<IdentityList> list_own_identities(AuthContext& ctx,
                                                         const std::string& token);
// Refused (last_way) when the account would be left with no way to sign in.
boost::asio::awaitable<IdentityRemoval> unlink_own_identity(AuthContext& ctx,
                                                            const std::string& token,
                                                            std::string_view id,
                                                            const EventSource& source);

// The admin API: an unknown account is not_found. The operator may remove
// an account's last way (and give it a password with 10.4.12).
boost::asio::awaitable<IdentityList> list_user_identities(AuthContext& ctx,
                                                          const std::string& user_id);
boost::asio::awaitable<IdentityRemoval> admin_unlink_identity(AuthContext& ctx, std::string_view id,
                                                              const EventSource& source);

// A mail proved the address of an account that had not had it proved (a
// reset, 6 /reset; a sign-in by mail, 19.3): whoever linked an upstream
// identity to it had not proved it, so every link goes, each with its
// identity.unlinked (`"reason": "address_proved"`). Returns how many.
std::int64_t unlink_on_first_proof(Transaction& tx, const EventSource& source,
                                   const std::string& user_id, Millis now);

}  // namespace authd
