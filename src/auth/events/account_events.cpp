#include "auth/events/account_events.hpp"

#include <vector>

#include "auth/credentials/email.hpp"

namespace authd {

void record_account_changes(Transaction& tx, const EventSource& source, const UserRecord& before,
                            const UserRecord& after, Millis now) {
  if (before.email != after.email) {
    record_event(tx, source, "email.changed", after.id,
                 {{"from", mask_email(before.email)}, {"to", mask_email(after.email)}}, now);
  }
  if (before.disabled != after.disabled)
    record_event(tx, source, after.disabled ? "user.disabled" : "user.enabled", after.id, {}, now);
  // The members by their names in the User body (interface.md 2).
  std::vector<std::string> fields;
  if (before.display_name != after.display_name) fields.emplace_back("displayName");
  if (before.phone != after.phone) fields.emplace_back("phone");
  if (before.photo_url != after.photo_url) fields.emplace_back("photoUrl");
  if (before.email_verified_at.has_value() != after.email_verified_at.has_value() &&
      before.email == after.email)
    fields.emplace_back("emailVerified");
  if (before.phone_verified_at.has_value() != after.phone_verified_at.has_value())
    fields.emplace_back("phoneVerified");
  if (!fields.empty())
    record_event(tx, source, "user.updated", after.id, {{"fields", fields}}, now);
}

}  // namespace authd
