// The request for a sign-in mail and the mail's minting at delivery
// (interface.md 19.1, 19.2, 19.5).
#include <sodium.h>

#include <cstdio>

#include "auth/login/throttle.hpp"
#include "auth/mail_flows/email_signin.hpp"
#include "auth/mail_flows/mail_request.hpp"
#include "crypto/random.hpp"
#include "crypto/sealed_secrets.hpp"
#include "store/database.hpp"

namespace authd {
namespace {

constexpr std::string_view kCodeDigestPurpose = "authd e-mail sign-in code";

// 8 decimal digits, uniform (libsodium's randombytes_uniform has no modulo
// bias), leading zeros kept.
std::string new_signin_code() {
  std::array<char, kSigninCodeDigits + 1> digits{};
  std::snprintf(digits.data(), digits.size(), "%08u", randombytes_uniform(100'000'000U));
  std::string code(digits.data(), kSigninCodeDigits);
  sodium_memzero(digits.data(), digits.size());
  return code;
}

// What a code's digest is taken of: the mail's token digest, then the code.
std::string code_message(const Sha256Digest& token_digest, std::string_view code) {
  std::string message(reinterpret_cast<const char*>(token_digest.data()), token_digest.size());
  message.append(code);
  return message;
}

}  // namespace

Sha256Digest code_digest(const SecretSealer* sealer, const Sha256Digest& token_digest,
                         std::string_view code) {
  std::string message = code_message(token_digest, code);
  Sha256Digest digest =
      sealer ? sealer->keyed_digest(kCodeDigestPurpose, message) : sha256(message);
  sodium_memzero(message.data(), message.size());
  return digest;
}

std::optional<Sha256Digest> previous_code_digest(const SecretSealer* sealer,
                                                 const Sha256Digest& token_digest,
                                                 std::string_view code) {
  if (!sealer) return std::nullopt;
  std::string message = code_message(token_digest, code);
  auto digest = sealer->previous_keyed_digest(kCodeDigestPurpose, message);
  sodium_memzero(message.data(), message.size());
  return digest;
}

boost::asio::awaitable<EmailSigninRequestOutcome> request_email_signin(AuthContext& ctx,
                                                                       const std::string& email,
                                                                       const EventSource& source) {
  const AuthPolicy& policy = ctx.policy;
  // /forgot's rules (auth/mail_flows/recovery.cpp), counted apart.
  const MailRequestLimits limits{
      client_counters(ClientCounterKind::email_signin, source.client_address,
                      policy.email_signin_requests_per_client, policy.ipv6_aggregates),
      signin_mail_key(email), policy.email_signin_mails_per_email_short,
      policy.email_signin_mails_per_email_long};
  OutboxRecord mail;
  mail.kind = std::string(kEmailSigninMailKind);
  mail.email = email;
  AddressMailOutcome outcome =
      co_await request_address_mail(ctx, limits, mail, source, "login.email_requested");
  co_return outcome;
}

EmailSigninMail prepare_email_signin_mail(Transaction& tx, const OutboxRecord& mail, Millis now,
                                          const SecretSealer* sealer, bool signup_open) {
  EmailSigninMail out;
  std::optional<UserRecord> user = tx.users().by_email(mail.email);
  if (!user) {
    // Never an account without a click: the mail only points at the
    // sign-up form, which asks for a password (interface.md 19.5).
    if (signup_open) out.kind = EmailSigninMail::Kind::signup_invitation;
    return out;
  }
  if (user->disabled) return out;
  out.kind = EmailSigninMail::Kind::signin;
  out.token = new_secret_token(kSigninTokenPrefix);
  out.code = new_signin_code();
  EmailSignInRecord record;
  record.token_digest = sha256(out.token);
  record.code_digest = code_digest(sealer, record.token_digest, out.code);
  record.user_id = user->id;
  record.email = user->email;
  record.created_at = now;
  record.expires_at = now + std::chrono::milliseconds(kSigninMailLifetime).count();
  tx.email_signins().replace(record);  // voids the account's older mail
  return out;
}

}  // namespace authd
