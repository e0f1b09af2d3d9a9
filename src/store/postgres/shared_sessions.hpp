// The session statements of one batch in one statement (docs/performance.md,
// sections 30 and 31): the token checks of a read batch, and the session
// deletes of a batch of logouts. Each unit adds its digest and waits for
// company (PipelineTurns::wait_for_company); the first one resumed then
// sends one statement for every digest added, and parks for its answer like
// any unit. The others park behind it, so that when they are resumed the
// first has read the rows, and each takes its own.
//
// The units still get their own outcomes but for the statement itself: a
// failure of the shared statement (the server gone, the batch's deadline)
// fails every unit that shared it, as it would have failed each of them
// alone. Its input, fixed-length digests and times, cannot make it fail
// for one unit. The units see one snapshot, taken when the statement runs.
#pragma once

#include <cstddef>
#include <exception>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "crypto/random.hpp"
#include "store/records.hpp"

namespace authd::postgres {

class Connection;
class PipelineTurns;

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
  // The units that share one statement.
  struct Group {
    std::vector<Sha256Digest> digests;
    std::vector<Millis> nows;                       // a revoke's `now` per digest
    std::vector<std::optional<SessionUser>> found;  // by the order of `digests`
    std::exception_ptr failure;
    bool sent = false;
    bool answered = false;
  };
  // Adds `digest` to `open`'s group, waits for company, and returns this
  // unit's row once `send` has run for the group (on the first unit).
  static std::optional<SessionUser> share(std::shared_ptr<Group>& open, PipelineTurns& turns,
                                          const Sha256Digest& digest, const Millis* now,
                                          const std::function<void(Group&)>& send);
  static void look_up(Connection& db, Group& group);
  static void revoke(Connection& db, Group& group);

  std::shared_ptr<Group> open_lookups_;  // the group a lookup joins, until it is sent
  std::shared_ptr<Group> open_revokes_;
};

}  // namespace authd::postgres
