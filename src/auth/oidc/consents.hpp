// A user's consents to third-party clients (interface.md 17.5): listed by
// GET /consents, withdrawn by DELETE /consents/{clientId}.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include <boost/asio/awaitable.hpp>

#include "auth/context.hpp"
#include "auth/events/events.hpp"
#include "store/areas/oauth_grants.hpp"

namespace authd {

struct OwnConsents {
  enum class Kind { ok, invalid_token, unavailable } kind = Kind::unavailable;
  std::vector<ConsentListing> consents;
};
boost::asio::awaitable<OwnConsents> list_own_consents(AuthContext& ctx, const std::string& token);

struct ConsentWithdrawal {
  enum class Kind { ok, not_found, invalid_token, unavailable } kind = Kind::unavailable;
};
// Removes the consent and revokes the access tokens the client holds for
// the user, with the event oauth.consent_revoked.
boost::asio::awaitable<ConsentWithdrawal> withdraw_consent(AuthContext& ctx,
                                                           const std::string& token,
                                                           std::string_view client_id,
                                                           const EventSource& source);

}  // namespace authd
