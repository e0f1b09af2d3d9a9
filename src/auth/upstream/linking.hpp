// The linking rules of interface.md 18.3: what an upstream identity
// provider's verified answer (a provider and its subject) does to authd's
// accounts. A known link signs its account in; an unknown one is linked to
// an existing account only when both the provider and authd hold the
// e-mail verified, and creates an account only when the provider's sign-up
// is open. Nothing else ever reaches an existing account (the
// pre-hijacking and linking advisories of
// docs/design/threat-model/upstream-linking.md).
//
// The flow itself (the redirect, the code exchange, the ID token's checks,
// the session) is auth/upstream's other files' and api/'s; this file only
// decides which account, and writes the link, the account and their events.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include <boost/asio/awaitable.hpp>

#include "auth/context.hpp"
#include "auth/events/events.hpp"
#include "core/time.hpp"
#include "store/records.hpp"

namespace authd {

class Transaction;

// What a verified upstream answer says about its user.
struct UpstreamAccount {
  std::string provider;         // the configured name ([a-z0-9-]{1,32})
  std::string subject;          // the upstream `sub` (GitHub: `id`), as text
  std::string email;            // canonical form (2.5), "" when none
  bool email_verified = false;  // true only when the upstream asserts it
  std::string display_name;     // "" when none
};

enum class UpstreamSignInOutcome {
  known_link,         // the link existed: its account (last_used_at updated)
  linked_by_email,    // both e-mails verified: linked now (identity.linked)
  created,            // sign-up open: a new account without a password (+ identity.linked)
  signup_closed,      // unknown, no account has the e-mail, sign-up closed
  no_email,           // unknown, sign-up open, but the upstream gave no e-mail
  link_from_account,  // an account has this e-mail but linking is refused:
                      // sign in with the existing method and link from there
  account_disabled,   // the link's (or the e-mail's verified) account is disabled
  unavailable,        // the store did not answer (only from the awaitable form)
};

struct UpstreamSignIn {
  UpstreamSignInOutcome outcome = UpstreamSignInOutcome::unavailable;
  std::optional<UserRecord> user;  // known_link, linked_by_email, created
  std::string identity_id;         // the link's public id, for those three
};

// In the caller's write transaction (so that the flow's single-use state,
// this decision and the session can commit together): decides and writes
// the link, the account and their events (identity.linked, user.created).
// `source` is who asked (the actor "self"); `now` stamps the rows.
// On PostgreSQL the account's row is locked once read. For the three
// outcomes with a user, the caller asks for the account's second factor
// (18.3.7), opens the session, and records the sign-in itself:
// users().record_login and login.succeeded with detail.method
// kUpstreamSignInMethod and detail.provider. May throw StoreError (a lost
// race on PostgreSQL): the transaction fails, and Database::write says
// unavailable.
UpstreamSignIn resolve_upstream_sign_in(Transaction& tx, const UpstreamAccount& account,
                                        bool signup_open, const EventSource& source, Millis now);

// The same in a write of its own.
boost::asio::awaitable<UpstreamSignIn> resolve_upstream_sign_in(AuthContext& ctx,
                                                                const UpstreamAccount& account,
                                                                bool signup_open,
                                                                const EventSource& source);

// Linking while signed in (interface.md 18.4, POST /identities/{name}): the
// caller proved the account by signing in, so no e-mail rule applies.
enum class LinkOutcome {
  linked,                     // new link (identity.linked)
  already_linked_here,        // this account had it already: nothing written
  linked_to_another_account,  // another account holds (provider, subject): refused
  no_account,                 // the account is gone (erased meanwhile)
  unavailable,                // the store did not answer (only from the awaitable form)
};

LinkOutcome link_identity(Transaction& tx, std::string_view user_id, const UpstreamAccount& account,
                          const EventSource& source, Millis now);
boost::asio::awaitable<LinkOutcome> link_identity(AuthContext& ctx, const std::string& user_id,
                                                  const UpstreamAccount& account,
                                                  const EventSource& source);

// The value of login.succeeded's detail.method for a sign-in through an
// upstream provider; detail.provider names the provider (14.1).
inline constexpr const char* kUpstreamSignInMethod = "upstream";

}  // namespace authd
