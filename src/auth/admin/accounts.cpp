#include "auth/admin/accounts.hpp"

#include <sodium.h>

#include <algorithm>

#include "auth/admin/erasure.hpp"
#include "auth/credentials/email.hpp"
#include "auth/credentials/password_rules.hpp"
#include "auth/events/account_events.hpp"
#include "auth/events/notices.hpp"
#include "auth/mail_flows/mailed_links.hpp"
#include "auth/oidc/user_tokens.hpp"
#include "auth/second_factor/second_factor.hpp"
#include "core/utf8.hpp"
#include "core/wipe.hpp"
#include "crypto/random.hpp"

namespace authd {
namespace {

// Also rejects text that is not well-formed UTF-8: the API serves these
// fields as JSON strings.
bool has_control_characters(std::string_view text) {
  if (!is_well_formed_utf8(text)) return true;
  for (unsigned char c : text) {
    if (c < 0x20 || c == 0x7F) return true;
  }
  return false;
}

AccountResult failure(AccountResult::Kind kind, std::string message) {
  return {kind, std::move(message), {}};
}

AccountResult store_failure() {
  return failure(AccountResult::Kind::unavailable, "the database did not answer");
}

}  // namespace

bool is_valid_display_name(std::string_view name) {
  auto length = count_code_points(name);
  return length >= 1 && length <= 255 && !has_control_characters(name);
}

bool is_valid_phone(std::string_view phone) {
  bool ok = phone.size() >= 2 && phone.size() <= 16 && phone[0] == '+';
  for (std::size_t i = 1; ok && i < phone.size(); ++i) ok = phone[i] >= '0' && phone[i] <= '9';
  return ok;
}

bool is_valid_photo_url(std::string_view url) {
  bool scheme = url.rfind("https://", 0) == 0 || url.rfind("http://", 0) == 0;
  return scheme && url.size() <= 2048 && url.find(' ') == std::string_view::npos &&
         !has_control_characters(url);
}

std::optional<std::string> profile_problem(const NewAccount& account) {
  if (!is_valid_email(account.email)) return "email: not a valid address";
  if (account.display_name && !is_valid_display_name(*account.display_name))
    return "display name: 1 to 255 characters, no control characters";
  if (account.phone && !is_valid_phone(*account.phone))
    return "phone: E.164 form, '+' and 1 to 15 digits";
  if (account.photo_url && !is_valid_photo_url(*account.photo_url))
    return "photo URL: an http or https URL of at most 2048 characters";
  return std::nullopt;
}

AccountResult Accounts::create(const NewAccount& account, std::string& password) {
  if (auto problem = profile_problem(account)) {
    wipe(password);
    return failure(AccountResult::Kind::invalid, *problem);
  }
  UserRecord user;
  user.email = canonical_email(account.email);
  if (auto problem = new_password_problem(password, user.email)) {
    wipe(password);
    return failure(AccountResult::Kind::invalid, *problem);
  }
  Millis now = now_millis();
  user.id = new_account_id(now);
  user.password_hash = hasher_.hash(password);
  wipe(password);
  user.display_name = account.display_name;
  user.phone = account.phone;
  user.photo_url = account.photo_url;
  user.created_at = user.updated_at = now;

  bool inserted = false;
  if (store_.run(Store::Mode::write, [&](Transaction& tx) {
        inserted = tx.users().insert(user);
        if (inserted)
          record_event(tx, source_, "user.created", user.id,
                       {{"passwordSet", user.password_hash.has_value()}}, user.created_at);
      }) != StoreStatus::ok)
    return store_failure();
  if (!inserted) return failure(AccountResult::Kind::exists, "an account with this e-mail exists");
  return {AccountResult::Kind::ok, {}, user};
}

AccountResult Accounts::show(std::string_view email) {
  std::optional<UserRecord> user;
  std::string canonical = canonical_email(email);
  if (store_.run(Store::Mode::read, [&](Transaction& tx) {
        user = tx.users().by_email(canonical);
      }) != StoreStatus::ok)
    return store_failure();
  if (!user) return failure(AccountResult::Kind::not_found, "no account with this e-mail");
  return {AccountResult::Kind::ok, {}, *user};
}

template <class Change>
AccountResult Accounts::update(std::string_view email, Change change) {
  std::string canonical = canonical_email(email);
  std::optional<UserRecord> user;
  StoreStatus status = store_.run(Store::Mode::write, [&](Transaction& tx) {
    user = tx.users().by_email(canonical);
    if (!user) return;
    // interface.md 2.6: every change moves updatedAt forward, even one made
    // within the same millisecond as the previous change (or a clock step
    // back): clients compare it to see whether the record changed.
    Millis now = std::max(now_millis(), user->updated_at + 1);
    const UserRecord before = *user;
    if (!change(tx, *user, now)) return;
    user->updated_at = now;
    tx.users().update(*user);
    record_account_changes(tx, source_, before, *user, now);
  });
  if (status != StoreStatus::ok) return store_failure();
  if (!user) return failure(AccountResult::Kind::not_found, "no account with this e-mail");
  return {AccountResult::Kind::ok, {}, *user};
}

AccountResult Accounts::set_password(std::string_view email, std::string& password) {
  if (auto problem = new_password_problem(password, canonical_email(email))) {
    wipe(password);
    return failure(AccountResult::Kind::invalid, *problem);
  }
  std::string phc = hasher_.hash(password);  // outside the transaction: it is slow
  wipe(password);
  return update(email, [&](Transaction& tx, UserRecord& user, Millis now) {
    user.password_hash = phc;
    tx.sessions().delete_of_user(user.id);
    revoke_oauth_tokens_of_user(tx, user.id);  // 17.10
    void_mailed_links(tx, user.id);
    record_event(tx, source_, "password.changed", user.id, {{"stored", "password"}}, now);
    queue_notice(tx, notify_, {NoticeTopic::password_changed, NoticeActor::admin}, user, user.email,
                 now);
    return true;
  });
}

AccountResult Accounts::set_disabled(std::string_view email, bool disabled) {
  return update(email, [&](Transaction& tx, UserRecord& user, Millis) {
    if (disabled) {
      tx.sessions().delete_of_user(user.id);
      revoke_oauth_tokens_of_user(tx, user.id);  // 17.10
      void_mailed_links(tx, user.id);
    }
    if (user.disabled == disabled) return false;
    user.disabled = disabled;
    return true;
  });
}

AccountResult Accounts::mark_email_verified(std::string_view email) {
  return update(email, [](Transaction&, UserRecord& user, Millis now) {
    if (user.email_verified_at) return false;
    user.email_verified_at = now;
    return true;
  });
}

AccountResult Accounts::erase(std::string_view email) {
  std::string canonical = canonical_email(email);
  std::optional<UserRecord> user;
  if (store_.run(Store::Mode::write, [&](Transaction& tx) {
        user = tx.users().by_email(canonical);
        if (!user) return;
        erase_account(tx, *user);
        record_event(tx, source_, "user.deleted", user->id, {}, now_millis());
      }) != StoreStatus::ok)
    return store_failure();
  if (!user) return failure(AccountResult::Kind::not_found, "no account with this e-mail");
  return {AccountResult::Kind::ok, {}, *user};
}

AccountResult Accounts::reset_mfa(std::string_view email) {
  std::string canonical = canonical_email(email);
  std::optional<UserRecord> user;
  if (store_.run(Store::Mode::write, [&](Transaction& tx) {
        user = tx.users().by_email(canonical);
        if (!user) return;
        remove_second_factors(tx, source_, notify_, *user, now_millis());
      }) != StoreStatus::ok)
    return store_failure();
  if (!user) return failure(AccountResult::Kind::not_found, "no account with this e-mail");
  return {AccountResult::Kind::ok, {}, *user};
}

AccountResult Accounts::mark_phone_verified(std::string_view email) {
  return update(email, [](Transaction&, UserRecord& user, Millis now) {
    if (user.phone_verified_at) return false;
    user.phone_verified_at = now;
    return true;
  });
}

}  // namespace authd
