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
};

}  // namespace authd
