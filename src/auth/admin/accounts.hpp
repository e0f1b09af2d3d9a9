// Operator actions on accounts (the `authd user ...` commands). Synchronous:
// they run in the CLI process, straight on the store.
#pragma once

#include <optional>
#include <string>
#include <utility>

#include "auth/events/events.hpp"
#include "auth/policy.hpp"
#include "crypto/password_hasher.hpp"
#include "store/records.hpp"
#include "store/store.hpp"

namespace authd {

struct NewAccount {
  std::string email;
  std::optional<std::string> display_name;
  std::optional<std::string> phone;
  std::optional<std::string> photo_url;
};

struct AccountResult {
  enum class Kind { ok, invalid, exists, not_found, unavailable } kind = Kind::unavailable;
  std::string message;  // what went wrong, for the operator
  UserRecord user;      // the account after the change, when ok
};

class Accounts {
 public:
  // Each change is recorded with its events (interface.md 14.1) from
  // `source` (the CLI's: actor "cli"); `notify`: which changes mail the
  // account's owner (interface.md 14.3).
  Accounts(Store& store, const PasswordHasher& hasher, EventSource source,
           NoticeSettings notify = {})
      : store_(store), hasher_(hasher), source_(std::move(source)), notify_(notify) {}

  // `password` is wiped by every method that takes one.
  AccountResult create(const NewAccount& account, std::string& password);
  AccountResult show(std::string_view email);
  // Like a reset: revokes every session and voids any reset token; the
  // owner is told (interface.md 14.3).
  AccountResult set_password(std::string_view email, std::string& password);
  // Disabling revokes every session and voids any reset token.
  AccountResult set_disabled(std::string_view email, bool disabled);
  AccountResult mark_email_verified(std::string_view email);
  AccountResult mark_phone_verified(std::string_view email);
  // Erases the account and everything that refers to it (auth/admin/erasure.hpp).
  AccountResult erase(std::string_view email);
  // Removes the account's second factor, pending or confirmed, and its
  // recovery codes (interface.md 12.4): for a user who lost both. The
  // owner is told when a confirmed factor went (14.3).
  AccountResult reset_mfa(std::string_view email);

 private:
  // Loads the account by e-mail, lets `change(tx, user, now)` edit it
  // (return false for no change), stores it with updatedAt = now, which is
  // strictly later than the previous updatedAt.
  template <class Change>
  AccountResult update(std::string_view email, Change change);

  Store& store_;
  const PasswordHasher& hasher_;
  EventSource source_;
  NoticeSettings notify_;
};

// Profile field checks shared by the CLI and the admin API: a display name
// of 1 to 255 code points without control characters, a phone number in
// E.164 form, an http(s) photo URL of at most 2048 characters.
std::optional<std::string> profile_problem(const NewAccount& account);
bool is_valid_display_name(std::string_view name);
bool is_valid_phone(std::string_view phone);
bool is_valid_photo_url(std::string_view url);

}  // namespace authd
