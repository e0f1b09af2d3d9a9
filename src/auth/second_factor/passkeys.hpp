// The passkey flows (interface.md 16): registration with the current
// password, passwordless sign-in, the account's list, and removal. The
// checks of a response are crypto/webauthn.hpp's; the challenge and the
// counter are taken in the transaction that acts on the answer
// (auth/second_factor/passkey_factor.hpp).
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include <boost/asio/awaitable.hpp>
#include <nlohmann/json.hpp>

#include "auth/context.hpp"
#include "auth/events/events.hpp"
#include "auth/second_factor/second_factor.hpp"
#include "auth/sessions/session.hpp"
#include "crypto/webauthn.hpp"
#include "store/records.hpp"

namespace authd {

struct PasskeyOutcome {
  enum class Kind {
    ok,
    invalid_token,           // the caller's token: 401
    throttled,               // 429
    wrong_proof,             // the password: 403
    second_factor_required,  // the right password, no valid second factor (16.4.3): 403
    not_found,               // not one of the caller's passkeys: 404
    conflict,                // the credential id is registered already: 409
    refused,                 // a check of 16.7 failed (`failed`): 400 to register, 401 to sign in
    disabled,                // a valid sign-in of a disabled account: 403
    busy,                    // the hashing pool is saturated: 503
    unavailable,             // the store, or no RP ID (16.1.2): 503
  } kind = Kind::unavailable;
  std::chrono::seconds retry_after{0};
  std::string second_factors;  // second_factor_required: Authd-Second-Factor's list
  std::optional<webauthn::Check> failed;
  nlohmann::json options;                   // the options routes: the "publicKey" object
  PasskeyRecord passkey;                    // registered
  std::vector<std::string> recovery_codes;  // registered as the first factor: shown once
  std::vector<PasskeyRecord> passkeys;      // the list
  UserRecord user;                          // signed in
  std::string token;                        // signed in
};

// 16.1.2: without an RP ID no passkey can be made or checked; every flow
// below answers unavailable then.
bool passkeys_available(const AuthContext& ctx);

// POST /webauthn/register/options (16.2.1), with the account's second
// factor when it has one (16.4.3).
boost::asio::awaitable<PasskeyOutcome> passkey_registration_options(AuthContext& ctx,
                                                                    const std::string& token,
                                                                    std::string& password,
                                                                    const SecondFactorInput& second,
                                                                    const EventSource& source);

// POST /webauthn/register (16.2.2). `name` is valid (the API checked it).
boost::asio::awaitable<PasskeyOutcome> register_passkey(
    AuthContext& ctx, const std::string& token, const webauthn::RegistrationResponse& response,
    const std::string& name, const EventSource& source);

// POST /webauthn/login/options (16.3.1).
boost::asio::awaitable<PasskeyOutcome> passkey_sign_in_options(AuthContext& ctx,
                                                               const std::string& client_address);

// POST /webauthn/login (16.3.2).
boost::asio::awaitable<PasskeyOutcome> sign_in_with_passkey(
    AuthContext& ctx, const webauthn::AssertionResponse& response, const SessionOrigin& origin,
    const EventSource& source);

// GET /webauthn/credentials (16.5.1).
boost::asio::awaitable<PasskeyOutcome> list_passkeys(AuthContext& ctx, const std::string& token);

// POST /webauthn/credentials/{id}/remove (16.5.2), with the account's
// second factor (16.4.3).
boost::asio::awaitable<PasskeyOutcome> remove_passkey(AuthContext& ctx, const std::string& token,
                                                      const std::string& passkey_id,
                                                      std::string& password,
                                                      const SecondFactorInput& second,
                                                      const EventSource& source);

// At most this many passkeys per account (16.2.1).
inline constexpr std::int64_t kMostPasskeys = 20;

}  // namespace authd
