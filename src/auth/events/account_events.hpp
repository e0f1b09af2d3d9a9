// The events of a change to an account's record (interface.md 14.1), found
// by comparing the record before and after it, so that every path that
// changes an account (the admin API, the CLI, an import) records the same.
#pragma once

#include "auth/events/events.hpp"

namespace authd {

// email.changed (both addresses masked), user.disabled or user.enabled, and
// user.updated naming the other members that changed; nothing when nothing
// did. The password is not compared: its change is password.changed,
// recorded by the flow that sets it.
void record_account_changes(Transaction& tx, const EventSource& source, const UserRecord& before,
                            const UserRecord& after, Millis now);

}  // namespace authd
