// The rows authd keeps, as plain values. The store reads and writes them; the
// domain (auth/) decides what they mean. No type here knows SQL or HTTP.
#pragma once

#include <cmath>
#include <cstdint>
#include <optional>
#include <string>

#include "core/time.hpp"
#include "crypto/random.hpp"

namespace authd {

// A kind of stored password hash (crypto/hash_kind.hpp) and its last
// measured cost relative to the own kind `cost_basis` (interface.md 10.5);
// no cost when it was never measured against any.
struct HashKindCost {
  std::string kind;
  std::optional<double> relative_cost;
  std::string cost_basis;
};

// A relative cost as the store keeps it: in thousandths.
inline std::int64_t cost_milli(double relative_cost) { return std::llround(relative_cost * 1000); }

struct UserRecord {
  std::string id;                            // UUIDv7
  std::string email;                         // canonical (ASCII-lowercased)
  std::optional<std::string> password_hash;  // argon2id PHC string; never leaves the server
  std::optional<std::string> phone;
  std::optional<std::string> photo_url;
  std::optional<std::string> display_name;
  std::optional<Millis> email_verified_at;
  std::optional<Millis> phone_verified_at;
  bool disabled = false;
  Millis created_at = 0;
  Millis updated_at = 0;
  // The last session opened with the account's credentials (a login, a
  // confirmed sign-up): what the admin view shows as lastLoginAt. Written
  // only by UserStore::record_login, never by update(): a login is not a
  // change of the record (interface.md 2.6).
  std::optional<Millis> last_login_at{};
};

struct SessionRecord {
  Sha256Digest token_digest{};  // the token itself is never stored
  std::string user_id;
  Millis created_at = 0;
  Millis expires_at = 0;
  // What GET /sessions shows (interface.md 11.2): a random UUID that names
  // the session in public, never derived from the token; and where the
  // login came from. Null for a session opened by a release before
  // migration 4 (PostgreSQL's rolling upgrade), which still gets an id.
  std::string public_id{};
  std::optional<std::string> client_address{};
  std::optional<std::string> user_agent{};
  // How it signed in, as RFC 8176 methods, space-separated ("pwd otp mfa"):
  // the ID token's amr (interface.md 17.8). Empty for a session opened
  // before migration 15.
  std::string amr{};
};

// An unrevoked session's user and expiry, read together (GET /me, logout).
struct SessionUser {
  UserRecord user;
  Millis expires_at = 0;
};

// A mail to send: a reset request, or a sign-up with what the account will
// be made of. It holds no token: the worker mints one at delivery time.
struct OutboxRecord {
  std::int64_t id = 0;
  std::string kind;     // "password_reset" or "signup"
  std::string user_id;  // empty: found by `email` at delivery (interface.md 6 /forgot 2)
  std::string email;
  Millis created_at = 0;
  int attempts = 0;
  Millis next_attempt_at = 0;
  // A sign-up's chosen password (argon2id PHC string) and display name;
  // the hash is cleared once the mail is sent (it then lives only in the
  // pending sign-up, SignupStore).
  std::optional<std::string> password_hash;
  std::optional<std::string> display_name;
  // Who asked for a sign-up mail (the client address of interface.md
  // 13.1): the mail says it, with `created_at` as the time (11.5).
  std::optional<std::string> client_address;
};

struct ResetTokenRecord {
  Sha256Digest token_digest{};
  std::string user_id;
  Millis created_at = 0;
  Millis expires_at = 0;
};

// A sign-up waiting for its address to be proved (interface.md 11.4-11.5):
// one per address at most, keyed by its token's digest.
struct PendingSignupRecord {
  Sha256Digest token_digest{};
  std::string email;          // canonical
  std::string password_hash;  // argon2id PHC string; never leaves the server
  std::optional<std::string> display_name;
  Millis created_at = 0;
  Millis expires_at = 0;
  // The outbox row of the request whose password and display name these
  // are (interface.md 11.5: the newest request of the address wins).
  std::int64_t request_id = 0;
};

}  // namespace authd

namespace authd {

// An operator's key for the admin API (interface.md 10.2): kept only as the
// digest of the key, under a unique name.
struct AdminKeyRecord {
  std::string name;
  Sha256Digest key_digest{};
  std::string scope;  // "read" or "write"
  Millis created_at = 0;
  std::optional<Millis> last_used_at{};
};

// An operator of the console (interface.md 21.2): an account granted the
// console with a scope ("read" or "write"), and who granted it.
struct OperatorRecord {
  std::string user_id;
  std::string scope;
  Millis granted_at = 0;
  std::string granted_by;  // the actor: "cli", "operator:EMAIL"
};

// A console session (interface.md 21.2): its token only as a digest; it
// ends when idle past `idle_until` or at `expires_at`, whichever comes
// first.
struct ConsoleSessionRecord {
  Sha256Digest token_digest{};
  std::string user_id;
  Millis created_at = 0;
  Millis idle_until = 0;
  Millis expires_at = 0;
};

}  // namespace authd

namespace authd {

// An account's TOTP factor (interface.md 12): its secret, sealed with the
// secret key (crypto/sealed_secrets.hpp), never stored in clear. Pending
// until confirmed with a code; `last_step` is the newest time step accepted,
// so that no step is accepted twice (12.3).
struct TotpFactorRecord {
  std::string user_id;
  std::string sealed_secret;
  Millis created_at = 0;
  std::optional<Millis> confirmed_at{};  // none: pending
  std::int64_t last_step = -1;           // none accepted yet: -1

  bool confirmed() const { return confirmed_at.has_value(); }
};

// A passkey (interface.md 16.6.1): a WebAuthn credential's public half.
// Nothing here can sign; ids and keys are base64url text.
struct PasskeyRecord {
  std::string id;  // the credential id, base64url
  std::string user_id;
  std::string name;
  int algorithm = 0;       // COSE: -7 ES256, -8 EdDSA
  std::string public_key;  // base64url of libfido2's raw form (crypto/webauthn.hpp)
  std::int64_t sign_count = 0;
  bool backed_up = false;
  Millis created_at = 0;
  std::optional<Millis> last_used_at{};
};

// What a WebAuthn challenge was issued for (interface.md 16.6.2).
enum class ChallengePurpose : std::int64_t { registration = 1, sign_in = 2 };

}  // namespace authd

namespace authd {

// One entry of the audit trail (interface.md 14.1), as stored. `detail` is
// a JSON object as text; nothing here ever holds a password, token, hash,
// code or secret (the domain's record_event decides what goes in).
struct EventRecord {
  std::int64_t seq = 0;  // the store's order; set by EventStore::append
  std::string id;        // UUIDv7, also the webhook's webhook-id
  Millis at = 0;
  std::string type;  // "login.succeeded", ...
  std::optional<std::string> user_id;
  std::string actor;  // "self", "admin:NAME", "cli", "system"
  std::optional<std::string> client_address;
  std::optional<std::string> user_agent;
  std::optional<std::string> request_id;
  std::string detail = "{}";
};

// What GET /admin/events and `authd events` ask for: newest first, at most
// `limit`, older than the event `before_seq` when set (the cursor).
struct EventFilter {
  std::optional<std::string> user_id;
  std::optional<std::string> type;
  std::optional<Millis> since;  // at or after
  std::optional<std::int64_t> before_seq;
  int limit = 100;
};

// A queued webhook delivery of one event (interface.md 14.4).
struct WebhookDeliveryRecord {
  EventRecord event;
  int attempts = 0;
  Millis next_attempt_at = 0;
  std::optional<Millis> delivered_at{};
  std::optional<Millis> dead_at{};
  std::optional<std::string> last_error{};
};

}  // namespace authd
