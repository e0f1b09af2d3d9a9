#include "mail/resolved_mail.hpp"

#include "auth/mail_flows/email_signin.hpp"
#include "auth/mail_flows/recovery.hpp"
#include "auth/mail_flows/signup.hpp"
#include "store/transaction.hpp"

namespace authd {

namespace {

Resolved resolved_as(Resolved::Kind kind, std::string token = {}) {
  Resolved resolved;
  resolved.kind = kind;
  resolved.token = std::move(token);
  return resolved;
}

}  // namespace

Resolved resolve(Transaction& tx, const OutboxRecord& mail, Millis now,
                 const OutboxSettings& settings) {
  // A notification (interface.md 14.3) goes while its account exists
  // (erasing an account erases its queued mail too); nothing is minted.
  if (std::optional<Notice> notice = parse_notice_kind(mail.kind)) {
    std::optional<UserRecord> user = tx.users().by_id(mail.user_id);
    if (!user) return {};
    Resolved resolved = resolved_as(Resolved::Kind::notice);
    resolved.notice = notice;
    resolved.display_name = user->display_name;
    return resolved;
  }
  if (mail.kind == kSignupMailKind) {
    SignupMail signup = prepare_signup_mail(tx, mail, now, settings.signup_token_lifetime);
    if (signup.dropped()) return {};
    Resolved resolved = signup.account_exists
                            ? resolved_as(Resolved::Kind::account_exists)
                            : resolved_as(Resolved::Kind::signup, std::move(signup.token));
    resolved.requester = signup.account_exists
                             ? MailRequester{mail.created_at, mail.client_address.value_or("")}
                             : MailRequester{signup.requested_at, std::move(signup.requested_by)};
    return resolved;
  }
  if (mail.kind == kEmailSigninMailKind) {
    EmailSigninMail signin =
        prepare_email_signin_mail(tx, mail, now, settings.sealer, settings.signup_open);
    switch (signin.kind) {
      case EmailSigninMail::Kind::signin: {
        Resolved resolved = resolved_as(Resolved::Kind::email_signin, std::move(signin.token));
        resolved.code = std::move(signin.code);
        return resolved;
      }
      case EmailSigninMail::Kind::signup_invitation:
        return resolved_as(Resolved::Kind::signin_signup_invitation);
      case EmailSigninMail::Kind::dropped:
        break;
    }
    return {};
  }
  std::optional<std::string> token = mint_reset_token(tx, mail, now, settings.reset_token_lifetime);
  if (!token) return {};
  return resolved_as(Resolved::Kind::reset, std::move(*token));
}

MailMessage compose(const Resolved& resolved, const OutboxRecord& mail, Millis now,
                    const OutboxSettings& settings) {
  const MailTemplates& templates =
      settings.templates ? *settings.templates : MailTemplates::built_in();
  switch (resolved.kind) {
    case Resolved::Kind::signup:
      return signup_mail(settings.from, mail.email, settings.public_url, resolved.token,
                         settings.signup_token_lifetime, now, resolved.requester, templates);
    case Resolved::Kind::account_exists:
      return account_exists_mail(settings.from, mail.email, settings.public_url, now,
                                 resolved.requester, templates);
    case Resolved::Kind::notice:
      return notice_mail(settings.from,
                         {*resolved.notice, mail.email, resolved.display_name, mail.created_at},
                         settings.public_url, now, templates);
    case Resolved::Kind::email_signin:
      return email_signin_mail(settings.from, mail.email, settings.public_url, resolved.token,
                               resolved.code, kSigninMailLifetime, now, templates);
    case Resolved::Kind::signin_signup_invitation:
      return email_signin_signup_mail(settings.from, mail.email, settings.public_url, now,
                                      templates);
    case Resolved::Kind::reset:
    case Resolved::Kind::dropped:
      break;
  }
  return password_reset_mail(settings.from, mail.email, settings.public_url, resolved.token,
                             settings.reset_token_lifetime, now, templates);
}

}  // namespace authd
