// One transaction, as the domain sees it: the store's areas, each with the
// primitives of one kind of row. Domain code runs inside a transaction
// (Store::run, Database::read/write) and calls e.g.
// `tx.sessions().revoke(digest, now)`; each backend implements each area in
// a file of its own (store/sqlite/, store/postgres/). A new area (admin
// keys, second factors, events) is one more interface here and one more
// file per backend.
#pragma once

#include <cstdint>

#include "core/time.hpp"
#include "store/areas/admin_keys.hpp"
#include "store/areas/email_signins.hpp"
#include "store/areas/events.hpp"
#include "store/areas/identities.hpp"
#include "store/areas/oauth_clients.hpp"
#include "store/areas/oauth_grants.hpp"
#include "store/areas/oauth_tokens.hpp"
#include "store/areas/operators.hpp"
#include "store/areas/outbox.hpp"
#include "store/areas/passkeys.hpp"
#include "store/areas/reset_tokens.hpp"
#include "store/areas/second_factors.hpp"
#include "store/areas/sessions.hpp"
#include "store/areas/signing_keys.hpp"
#include "store/areas/signups.hpp"
#include "store/areas/throttle_events.hpp"
#include "store/areas/upstream_flows.hpp"
#include "store/areas/users.hpp"
#include "store/areas/webhooks.hpp"

namespace authd {

class Transaction {
 public:
  virtual ~Transaction() = default;

  virtual UserStore& users() = 0;
  virtual SessionStore& sessions() = 0;
  virtual ThrottleStore& throttle() = 0;
  virtual OutboxStore& outbox() = 0;
  virtual ResetTokenStore& reset_tokens() = 0;
  virtual EmailSignInStore& email_signins() = 0;
  virtual SignupStore& signups() = 0;
  virtual AdminKeyStore& admin_keys() = 0;
  virtual SecondFactorStore& second_factors() = 0;
  virtual PasskeyStore& passkeys() = 0;
  virtual EventStore& events() = 0;
  virtual WebhookStore& webhooks() = 0;
  // The OpenID provider (interface.md 17).
  virtual OAuthClientStore& oauth_clients() = 0;
  virtual AuthorizationRequestStore& authorization_requests() = 0;
  virtual AuthorizationCodeStore& authorization_codes() = 0;
  virtual AccessTokenStore& access_tokens() = 0;
  virtual ClientTokenStore& client_tokens() = 0;    // the client_credentials grant's (17.7)
  virtual RefreshTokenStore& refresh_tokens() = 0;  // 17.10
  virtual ConsentStore& consents() = 0;
  virtual SigningKeyStore& signing_keys() = 0;
  // Upstream identity providers' links (interface.md 18.3).
  virtual IdentityStore& identities() = 0;
  // The console (interface.md 21.2).
  virtual OperatorStore& operators() = 0;
  // Sign-in through upstream providers (interface.md 18.2).
  virtual UpstreamFlowStore& upstream_flows() = 0;

  // Housekeeping: removes what can no longer matter (expired sessions,
  // tokens, sign-in mails, pending sign-ups and passkey challenges, throttling events older than
  // the longest window, mail sent before `sent_mail_horizon`, audit events from before
  // `audit_horizon` with their webhook deliveries; the OpenID provider's expired waiting
  // requests, access tokens, client_credentials tokens and refresh token families, codes past
  // their keep_until and signing
  // keys past their remove_after; idle or expired console sessions; expired upstream flows);
  // returns the rows removed.
  std::int64_t prune(Millis now, Millis event_horizon, Millis sent_mail_horizon,
                     Millis audit_horizon) {
    return sessions().prune(now) + reset_tokens().prune(now) + email_signins().prune(now) +
           signups().prune(now) + passkeys().prune(now) + throttle().prune(event_horizon) +
           outbox().prune(sent_mail_horizon) + events().prune(audit_horizon) +
           events().prune_repeats(now) + authorization_requests().prune(now) +
           authorization_codes().prune(now) + access_tokens().prune(now) +
           refresh_tokens().prune(now) + signing_keys().prune(now) + client_tokens().prune(now) +
           operators().prune(now) + upstream_flows().prune(now);
  }
};

}  // namespace authd
