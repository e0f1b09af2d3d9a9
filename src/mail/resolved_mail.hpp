// What a mail of the outbox turns into at delivery (interface.md 6 /forgot
// 3, 11.4, 14.3, 19.2), decided in the transaction that claims it, and the
// message it is sent as.
#pragma once

#include <optional>
#include <string>

#include "auth/events/notices.hpp"
#include "core/time.hpp"
#include "core/wipe.hpp"
#include "mail/message.hpp"
#include "mail/outbox_worker.hpp"
#include "store/records.hpp"

namespace authd {

class Transaction;

// What a claimed mail turns into at delivery, decided in the claim's
// transaction: the token minted there, or nothing to send.
struct Resolved {
  enum class Kind {
    dropped,
    reset,
    signup,
    account_exists,
    notice,
    email_signin,
    signin_signup_invitation,
  } kind = Kind::dropped;
  std::string token;        // reset, signup, email_signin
  std::string code;         // email_signin
  MailRequester requester;  // signup, account_exists
  std::optional<Notice> notice;
  std::optional<std::string> display_name;  // notice

  // The token and the code, once sent or given up.
  void wipe_secrets() {
    wipe(token);
    wipe(code);
  }
};

// In the claim's transaction: mints the mail's token (and code), or
// decides there is nothing to send (dropped).
Resolved resolve(Transaction& tx, const OutboxRecord& mail, Millis now,
                 const OutboxSettings& settings);

// The message of a resolved mail that is not dropped.
MailMessage compose(const Resolved& resolved, const OutboxRecord& mail, Millis now,
                    const OutboxSettings& settings);

}  // namespace authd
