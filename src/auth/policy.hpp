// The tunable rules of the domain, taken from the configuration once.
#pragma once

#include <string>

#include "core/duration.hpp"
#include "crypto/webauthn.hpp"

namespace authd {

// Multiples of a per-client limit for the IPv6 networks around a client's
// /64. A /64 is one client (one subscriber's usual share), but a holder of
// a /48 has 65,536 of them: these make its /56 and /48 one counter each as
// well, at this many times the per-client limit, in the same window. The
// defaults leave a home's /56 four /64s' worth and a site's /48 sixteen.
// 0: no such counter.
struct Ipv6Aggregates {
  unsigned per_56 = 4;
  unsigned per_48 = 16;
};

// Which notification mails are sent (interface.md 14.3, --notify): each
// kind of change the account's owner is told about.
struct NoticeSettings {
  bool password_changed = true;
  bool email_changed = true;
  bool mfa_changed = true;  // a second factor added or removed
};

// The OpenID provider (interface.md 17): off unless --oidc on.
struct OidcSettings {
  bool on = false;
  std::string issuer;  // --public-url exactly, without a trailing slash (17.2)
  Duration id_token_ttl = std::chrono::minutes(10);      // --oidc-id-token-ttl (17.8)
  Duration access_token_ttl = std::chrono::minutes(10);  // --oidc-access-token-ttl (17.9)
  Duration refresh_idle = std::chrono::hours(24 * 30);   // --oidc-refresh-idle (17.10)
  Duration refresh_max = std::chrono::hours(24 * 90);    // --oidc-refresh-max (17.10)
  Duration secret_overlap = std::chrono::hours(24);      // --oidc-secret-overlap (17.3)
  Duration key_prepublish = std::chrono::hours(24);      // --oidc-key-prepublish (17.12)
  Duration key_rotation = std::chrono::hours(24 * 90);   // --oidc-key-rotation (17.12)
  Duration request_lifetime = std::chrono::minutes(10);  // a waiting request (17.5)
  Duration code_lifetime = std::chrono::seconds(60);     // an authorization code (17.6)
};

struct AuthPolicy {
  // Stored hashes of kinds dearer than 20 times the own are taken in
  // (--allow-costly-hashes, interface.md 10.5).
  bool allow_costly_hashes = false;
  Duration session_lifetime = std::chrono::hours(24);
  // The operator's console (interface.md 21.2): a console session ends
  // once idle this long (--console-idle-timeout), and in any case after
  // console_lifetime.
  Duration console_idle = std::chrono::minutes(15);
  Duration console_lifetime = std::chrono::hours(12);
  Duration reset_token_lifetime = std::chrono::minutes(30);
  // A reset mail becomes due after a random delay up to this, so that the
  // worker's disk writes cannot be tied to one /forgot request (which would
  // tell, by the latency of the next request, that the account exists).
  Duration reset_mail_jitter = std::chrono::seconds(2);
  RateLimit login_failures_per_email{10, std::chrono::minutes(15)};
  RateLimit login_failures_per_client{100, std::chrono::minutes(15)};
  RateLimit forgot_requests_per_client{100, std::chrono::minutes(15)};
  Ipv6Aggregates ipv6_aggregates;  // of both per-client limits above
  RateLimit reset_mails_per_email_short{1, std::chrono::minutes(1)};
  RateLimit reset_mails_per_email_long{5, std::chrono::hours(1)};

  // Self-service sign-up (interface.md 11.4-11.5): off unless opened; its
  // limits are /forgot's, counted apart from them. Sign-up mails wait out
  // the same random delay as reset mails (reset_mail_jitter).
  bool signup_open = false;
  Duration signup_token_lifetime = std::chrono::hours(24);
  RateLimit signup_requests_per_client{100, std::chrono::minutes(15)};
  RateLimit signup_mails_per_email_short{1, std::chrono::minutes(1)};
  RateLimit signup_mails_per_email_long{5, std::chrono::hours(1)};

  // Passwordless sign-in by mail (interface.md 19): off unless turned on;
  // its limits are /forgot's, counted apart from them. Its mails wait out
  // the same random delay as reset mails (reset_mail_jitter).
  bool email_signin = false;
  RateLimit email_signin_requests_per_client{100, std::chrono::minutes(15)};
  RateLimit email_signin_mails_per_email_short{1, std::chrono::minutes(1)};
  RateLimit email_signin_mails_per_email_long{5, std::chrono::hours(1)};

  // The second factor (interface.md 12): the issuer authenticator apps
  // show beside the account (otpauth:// URI), --mfa-issuer.
  std::string mfa_issuer = "authd";

  // Passkeys (interface.md 16.1): the RP ID and the origins allowed in a
  // response, from --webauthn-rp-id and --webauthn-origins or --public-url.
  // An empty RP ID: passkeys are unavailable (16.1.2).
  webauthn::RelyingParty webauthn;

  // Notification mails (interface.md 14.3): all on unless --notify says.
  NoticeSettings notify;

  OidcSettings oidc;

  // Throttling events older than this can no longer count in any window.
  Duration longest_window() const;
};

}  // namespace authd
