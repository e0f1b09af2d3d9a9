// Token revocation (interface.md 17.11, RFC 7009): a client ends one of its
// own tokens. A refresh token takes its family and the family's access
// tokens with it; an access token ends alone. An unknown, expired or
// already ended token is no error (RFC 7009 2.2); another client's live
// token is refused and left alone (2.1). The client has authenticated
// already.
#pragma once

#include <cstdint>
#include <string>

#include <boost/asio/awaitable.hpp>

#include "auth/context.hpp"
#include "auth/events/events.hpp"
#include "store/areas/oauth_clients.hpp"

namespace authd {

struct RevocationOutcome {
  enum class Kind { ok, unauthorized_client, unavailable } kind = Kind::unavailable;
  std::int64_t revoked = 0;  // ok: the tokens removed (0: nothing to revoke)
};

// `token_type_hint` is only a hint (RFC 7009 2.1): both kinds are looked
// up whatever it says.
boost::asio::awaitable<RevocationOutcome> revoke_token(AuthContext& ctx,
                                                       const OAuthClientRecord& client,
                                                       const std::string& token,
                                                       const EventSource& source);

}  // namespace authd
