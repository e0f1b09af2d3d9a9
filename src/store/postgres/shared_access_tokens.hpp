// The access-token lookups of one read batch in one statement
// (shared_statement.hpp), as the batch's session lookups share theirs
// (shared_sessions.hpp): userinfo's lookup is most of its read, and a
// batch of them costs PostgreSQL one statement instead of one each
// (docs/design/performance-choices.md#postgresql-token-checks-in-one-statement).
// Their input, fixed-length digests and times, cannot make the shared
// statement fail for one unit.
#pragma once

#include <optional>

#include "crypto/random.hpp"
#include "store/areas/oauth_grants.hpp"
#include "store/postgres/shared_statement.hpp"

namespace authd::postgres {

class Connection;

class SharedAccessTokens {
 public:
  // As AccessTokenStore::live_with_user: the token whose digest is
  // `digest`, unexpired at `now`, with its user.
  std::optional<AccessTokenUser> live_with_user(Connection& db, PipelineTurns& turns,
                                                const Sha256Digest& digest, Millis now);
  // The same for a read alone, or in a write: its own statement.
  static std::optional<AccessTokenUser> live_with_user_alone(Connection& db,
                                                             const Sha256Digest& digest,
                                                             Millis now);

 private:
  struct Ask {
    Sha256Digest digest;
    Millis now = 0;
  };
  using Shared = SharedStatement<Ask, std::optional<AccessTokenUser>>;
  static void look_up(Connection& db, Shared::Group& group);

  Shared lookups_;
};

}  // namespace authd::postgres
