// Passkeys (interface.md 16): the W3C WebAuthn Level 2 verification
// procedures, "Registering a New Credential" (7.1) and "Verifying an
// Authentication Assertion" (7.2), for the relying party authd is. Every
// check is one named step, so that a refusal says which one failed (a
// test feeds a response failing exactly that one). The parsing of the
// attestation object is libcbor's, the COSE public keys and the signatures
// are libfido2's (es256_pk_t, eddsa_pk_t, fido_assert_verify): no
// cryptography of our own. Pure: no store, no clock; the caller finds the
// stored challenge (by the digest of the one in clientDataJSON) and the
// stored credential, and passes them in.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>

namespace authd::webauthn {

// COSE algorithm identifiers (RFC 9053) authd accepts, in its order of
// preference (the options' pubKeyCredParams).
inline constexpr int kEs256 = -7;
inline constexpr int kEdDsa = -8;

// The relying party: its RP ID (a domain) and the origins a response may
// come from (scheme://host[:port], as clientDataJSON writes them).
struct RelyingParty {
  std::string id;
  std::vector<std::string> origins;
};

// One verification step (interface.md 16.7); `check_name` is how 16.7
// names it in error details and events ("rpIdHash"; "shape" for a
// response that does not parse).
enum class Check {
  shape,                     // the response is not the JSON it must be (bad base64url...)
  client_data,               // clientDataJSON is not a JSON object with the members it needs
  type,                      // clientData.type is not webauthn.create / webauthn.get
  challenge,                 // not a challenge authd issued, unused and unexpired
  origin,                    // clientData.origin is not one of the relying party's origins
  cross_origin,              // clientData.crossOrigin is true (authd is never framed)
  attestation_object,        // the attestation object is not the CBOR map it must be
  authenticator_data,        // authenticatorData is too short or malformed
  rp_id_hash,                // rpIdHash is not SHA-256 of the RP ID
  user_present,              // the UP flag is not set
  user_verified,             // the UV flag is not set where it is required
  attested_credential_data,  // registration: no AT flag, or the data is cut short or malformed
  algorithm,                 // the key's algorithm is not ES256 or EdDSA
  public_key,                // the COSE key does not parse as a key of its algorithm
  attestation,               // the attestation format is not "none" with an empty statement
  credential_id,             // the id is empty, over 1023 bytes, or not the one named
  user_handle,               // assertion: userHandle is not the credential's account
  signature,                 // assertion: the signature does not verify
  sign_count,                // assertion: the signature counter did not grow
};
const char* check_name(Check check);

// What the browser sends back (PublicKeyCredential.toJSON(), the members
// authd reads), decoded from base64url. Bytes in std::string.
struct RegistrationResponse {
  std::string id;  // rawId
  std::string client_data_json;
  std::string attestation_object;
};
struct AssertionResponse {
  std::string id;  // rawId
  std::string client_data_json;
  std::string authenticator_data;
  std::string signature;
  std::optional<std::string> user_handle;
};

// From the JSON: {"id", "rawId", "type": "public-key", "response": {...}}.
// Nothing, with `problem` set (a sentence for the 400's detail), when a
// member is missing, not a string, not base64url (unpadded, as browsers
// write it), `id` and `rawId` differ, or `type` is not "public-key"
// ("credential.response.signature: not base64url"). Other members
// (clientExtensionResults, transports...) are ignored; userHandle may be
// absent or null.
std::optional<RegistrationResponse> parse_registration_response(const nlohmann::json& credential,
                                                                std::string& problem);
std::optional<AssertionResponse> parse_assertion_response(const nlohmann::json& credential,
                                                          std::string& problem);

// The challenge clientDataJSON carries (decoded from base64url): what the
// caller looks up, by its digest, among the challenges it issued. Nothing
// when clientDataJSON has none.
std::optional<std::string> challenge_of(std::string_view client_data_json);

// A credential as authd stores it.
struct StoredCredential {
  std::string id;          // the credential id (bytes)
  int algorithm = 0;       // kEs256 or kEdDsa
  std::string public_key;  // libfido2's raw form: x||y (64 bytes) for ES256, 32 for EdDSA
  std::uint32_t sign_count = 0;
  std::string user_handle;  // the account's user.id of the creation options (bytes)
};

struct RegistrationResult {
  std::optional<Check> failed;  // the first check that failed; nothing: registered
  StoredCredential credential;  // when none failed (user_handle left to the caller)
  bool backup_eligible = false;
  bool backed_up = false;
};

// 7.1, steps 5-26 less those that are the caller's (the credential id not
// registered yet, the account). `expected_challenge` is the stored
// challenge found for this response, nothing when none was; user
// verification is required (a passkey signs in without a password).
RegistrationResult verify_registration(const RegistrationResponse& response, const RelyingParty& rp,
                                       const std::optional<std::string>& expected_challenge);

struct AssertionResult {
  std::optional<Check> failed;  // the first check that failed; nothing: verified
  std::uint32_t sign_count = 0;
  bool backed_up = false;
};

// 7.2, steps 5-21 for `credential`, the stored credential whose id the
// response names. `require_user_verification`: true for a passwordless
// sign-in, false for a second factor (the password was the other one).
AssertionResult verify_assertion(const AssertionResponse& response, const RelyingParty& rp,
                                 const std::optional<std::string>& expected_challenge,
                                 const StoredCredential& credential,
                                 bool require_user_verification);

}  // namespace authd::webauthn
