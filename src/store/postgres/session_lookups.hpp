// The session lookups of one read batch in one statement (docs/performance.md,
// section 30). Each read that looks up a session's user adds its digest and
// waits for company (PipelineTurns::wait_for_company); the first one resumed
// then sends one statement for every digest added, and parks for its answer
// like any read. The others park behind it, so that when they are resumed
// the first has read the rows, and each takes its own.
//
// The reads still get their own outcomes but for the statement itself: a
// failure of the shared statement (the server gone, the batch's deadline)
// fails every read that shared it, as it would have failed each of them
// alone. Its input, fixed-length digests, cannot make it fail for one read.
// The reads see one snapshot, taken when the statement runs.
#pragma once

#include <cstddef>
#include <exception>
#include <memory>
#include <optional>
#include <vector>

#include "crypto/random.hpp"
#include "store/records.hpp"

namespace authd::postgres {

class Connection;
class PipelineTurns;

class SessionLookups {
 public:
  // The session's user and its expiry, as Sessions::user_of: the user of
  // the live (unrevoked) session whose token has `digest`, if any.
  std::optional<SessionUser> user_of(Connection& db, PipelineTurns& turns,
                                     const Sha256Digest& digest);
  // The same, for a read alone: its own statement, for one digest.
  static std::optional<SessionUser> user_of_alone(Connection& db, const Sha256Digest& digest);

 private:
  // The lookups that share one statement.
  struct Group {
    std::vector<Sha256Digest> digests;
    std::vector<std::optional<SessionUser>> found;  // by the order of `digests`
    std::exception_ptr failure;
    bool sent = false;
    bool answered = false;
  };
  static void look_up(Connection& db, Group& group);

  std::shared_ptr<Group> open_;  // the group a lookup joins, until it is sent
};

}  // namespace authd::postgres
