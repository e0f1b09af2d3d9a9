// The session statements of one batch in one statement (shared_statement.hpp):
// the token checks of a read batch
// (docs/design/performance-choices.md#postgresql-token-checks-in-one-statement),
// and the session deletes of a batch of logouts
// (docs/design/performance-choices.md#postgresql-logout-batches-in-two-statements).
// Their input, fixed-length digests and times, cannot make the shared
// statement fail for one unit.
#pragma once

#include <optional>

#include "crypto/random.hpp"
#include "store/postgres/shared_statement.hpp"
#include "store/records.hpp"

namespace authd::postgres {

class Connection;

class SharedSessions {
 public:
  // The session's user and its expiry, as Sessions::user_of: the user of
  // the live (unrevoked) session whose token has `digest`, if any.
  std::optional<SessionUser> user_of(Connection& db, PipelineTurns& turns,
                                     const Sha256Digest& digest);
  // The same, for a read alone: its own statement, for one digest; with
  // `locking` (a write), the user's row stays locked until the COMMIT.
  static std::optional<SessionUser> user_of_alone(Connection& db, const Sha256Digest& digest,
                                                  bool locking = false);

  // Sessions::revoke_live in a batch of logouts (one transaction): deletes
  // the live session whose token has `digest` if its account is enabled,
  // and returns that account. Of two units with one digest, one gets it.
  std::optional<UserRecord> revoke_live(Connection& db, PipelineTurns& turns,
                                        const Sha256Digest& digest, Millis now);
  static std::optional<UserRecord> revoke_live_alone(Connection& db, const Sha256Digest& digest,
                                                     Millis now);

 private:
  struct Ask {
    Sha256Digest digest;
    Millis now = 0;  // a revoke's
  };
  using Shared = SharedStatement<Ask, std::optional<SessionUser>>;
  static void look_up(Connection& db, Shared::Group& group);
  static void revoke(Connection& db, Shared::Group& group);

  Shared lookups_;
  Shared revokes_;
};

}  // namespace authd::postgres
