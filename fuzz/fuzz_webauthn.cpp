// Fuzz target: passkey responses (crypto/webauthn.hpp, crypto/webauthn_data.hpp,
// interface.md 16): the attestation object and the COSE key are
// attacker-controlled CBOR read by libcbor, the keys and signatures are
// libfido2's. Every input goes two ways:
//
// - as JSON text (nlohmann, no exceptions): the credential a browser sends,
//   through parse_registration_response and parse_assertion_response (the
//   whole value and its "credential" member, as the routes take it), and
//   what parses on through verify_registration and verify_assertion;
// - as raw bytes: a control byte, then the responses' members split at
//   kSeparator (below), through verify_registration, verify_assertion
//   (against a stored ES256 and a stored EdDSA credential, and against the
//   credential a registration that verifies makes) and the parsers of
//   webauthn_data.hpp directly.
//
// The relying party is fixed ({"authd.test", {"https://authd.test"}}); the
// expected challenge is the one the fuzzed clientDataJSON carries
// (challenge_of, as auth/second_factor/passkeys.cpp looks it up), so that the fuzzer gets
// past the challenge check. The seeds in fuzz/corpus/webauthn are real
// responses for the fixed keys below (signed with their private keys, which
// are not kept): registrations and assertions that verify.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "crypto/random.hpp"
#include "crypto/webauthn.hpp"
#include "crypto/webauthn_data.hpp"

namespace {

namespace wa = authd::webauthn;
using nlohmann::json;

// Between the raw members: clientDataJSON, attestationObject,
// authenticatorData, signature, id (rawId), userHandle, and the assertion's
// own clientDataJSON (when absent, the first is both ceremonies').
constexpr std::string_view kSeparator = "\n--\n";
enum Field : std::size_t {
  kClientData,
  kAttestationObject,
  kAuthenticatorData,
  kSignature,
  kId,
  kUserHandle,
  kAssertionClientData,
  kFields
};

// The control byte (the raw input's first).
constexpr std::uint8_t kRegistrationIdFromField = 0x01;  // else the attested credential's id
constexpr std::uint8_t kAssertionIdFromField = 0x02;     // else the stored credential's id
constexpr std::uint8_t kRequireUserVerification = 0x04;
constexpr std::uint8_t kUserHandleShift = 3;  // 2 bits: none, the stored one, the field's
constexpr std::uint8_t kNoExpectedChallenge = 0x20;
constexpr std::uint8_t kSignCountShift = 6;  // 2 bits: the stored counter, below

constexpr std::uint32_t kStoredSignCounts[] = {0, 1, 0x7FFFFFFF, 0xFFFFFFFF};

const wa::RelyingParty& relying_party() {
  static const wa::RelyingParty rp{"authd.test", {"https://authd.test"}};
  return rp;
}

std::string from_hex(std::string_view hex) {
  std::string bytes;
  for (std::size_t i = 0; i + 1 < hex.size(); i += 2)
    bytes.push_back(static_cast<char>(std::stoi(std::string(hex.substr(i, 2)), nullptr, 16)));
  return bytes;
}

// Made once with openssl (ecparam -name prime256v1 -genkey; genpkey -algorithm
// ed25519): the public keys in libfido2's raw form, x||y and the 32 bytes.
wa::StoredCredential es256_credential() {
  return {"fuzz-es256-credential", wa::kEs256,
          from_hex("92608d3b494a26168f578a099f101bebda4ff0605a3e60cdc3a702e68a4c9fa2"
                   "54a47ba7d1d7f1e11e675de20c1cef583823a2fe0b72568257d6b99dde58a615"),
          0, "fuzz-user-handle"};
}
wa::StoredCredential eddsa_credential() {
  return {"fuzz-eddsa-credential", wa::kEdDsa,
          from_hex("0a467c847f219d44bb4793f107ee056c74aebccc1e661707a0eaa76f2f09d601"), 0,
          "fuzz-user-handle"};
}

const std::vector<wa::StoredCredential>& stored_credentials() {
  static const std::vector<wa::StoredCredential> credentials = [] {
    authd::init_crypto();
    return std::vector<wa::StoredCredential>{es256_credential(), eddsa_credential()};
  }();
  return credentials;
}

void require(bool condition) {
  if (!condition) std::abort();
}

// A refusal names a check of interface.md 16.7.
void check_named(const std::optional<wa::Check>& failed) {
  if (failed) require(std::string_view(wa::check_name(*failed)) != "unknown");
}

// A view into `whole`, or empty.
bool inside(std::string_view part, std::string_view whole) {
  return part.empty() ||
         (part.data() >= whole.data() && part.data() + part.size() <= whole.data() + whole.size());
}

bool flag(std::uint8_t flags, std::uint8_t bit) { return (flags & bit) != 0; }

// What a registration that verified must have been.
void check_registration(const wa::RegistrationResponse& response,
                        const std::optional<std::string>& expected_challenge,
                        const wa::RegistrationResult& result) {
  check_named(result.failed);
  if (result.failed) {
    require(result.credential.id.empty() && result.credential.public_key.empty());
    return;
  }
  require(expected_challenge.has_value());
  const wa::StoredCredential& credential = result.credential;
  require(!credential.id.empty() && credential.id.size() <= 1023 && credential.id == response.id);
  require((credential.algorithm == wa::kEs256 && credential.public_key.size() == 64) ||
          (credential.algorithm == wa::kEdDsa && credential.public_key.size() == 32));
  std::optional<wa::AttestationObject> attestation =
      wa::parse_attestation_object(response.attestation_object);
  require(attestation && attestation->fmt == "none" && attestation->empty_statement);
  std::optional<wa::AuthenticatorData> data =
      wa::parse_authenticator_data(attestation->authenticator_data);
  require(data.has_value());
  const authd::Sha256Digest rp_id_hash = authd::sha256(relying_party().id);
  require(data->rp_id_hash ==
          std::string_view(reinterpret_cast<const char*>(rp_id_hash.data()), rp_id_hash.size()));
  require(flag(data->flags, wa::kUserPresent) && flag(data->flags, wa::kUserVerified) &&
          flag(data->flags, wa::kAttestedCredentialData));
  require(credential.sign_count == data->sign_count);
  require(result.backup_eligible == flag(data->flags, wa::kBackupEligible));
  require(result.backed_up == flag(data->flags, wa::kBackedUp));
}

// What an assertion that verified must have been.
void check_assertion(const wa::AssertionResponse& response,
                     const std::optional<std::string>& expected_challenge,
                     const wa::StoredCredential& credential, bool require_uv,
                     const wa::AssertionResult& result) {
  check_named(result.failed);
  if (result.failed) {
    require(result.sign_count == 0 && !result.backed_up);
    return;
  }
  require(expected_challenge.has_value() && response.id == credential.id &&
          !response.signature.empty());
  if (response.user_handle) require(*response.user_handle == credential.user_handle);
  if (require_uv) require(response.user_handle.has_value());
  std::optional<wa::AuthenticatorData> data =
      wa::parse_authenticator_data(response.authenticator_data);
  require(data && flag(data->flags, wa::kUserPresent));
  if (require_uv) require(flag(data->flags, wa::kUserVerified));
  require(result.sign_count == data->sign_count);
  require((result.sign_count == 0 && credential.sign_count == 0) ||
          result.sign_count > credential.sign_count);
}

// A registration, and, when it verifies, an assertion against the
// credential it made (a key from the fuzzer's bytes, on its curve).
void verify_registration(const wa::RegistrationResponse& response,
                         const std::optional<std::string>& expected_challenge,
                         const wa::AssertionResponse& assertion,
                         const std::optional<std::string>& assertion_challenge, bool require_uv) {
  const wa::RegistrationResult result =
      wa::verify_registration(response, relying_party(), expected_challenge);
  check_registration(response, expected_challenge, result);
  if (result.failed) return;
  wa::StoredCredential registered = result.credential;
  registered.user_handle = "fuzz-user-handle";
  wa::AssertionResponse signed_by_it = assertion;
  signed_by_it.id = registered.id;
  check_assertion(signed_by_it, assertion_challenge, registered, require_uv,
                  wa::verify_assertion(signed_by_it, relying_party(), assertion_challenge,
                                       registered, require_uv));
}

void verify_assertion(const wa::AssertionResponse& response,
                      const std::optional<std::string>& expected_challenge,
                      const wa::StoredCredential& credential, bool require_uv) {
  check_assertion(
      response, expected_challenge, credential, require_uv,
      wa::verify_assertion(response, relying_party(), expected_challenge, credential, require_uv));
}

// The credential JSON of a browser (PublicKeyCredential.toJSON()).
void fuzz_credential_json(const json& sent) {
  std::string problem;
  std::optional<wa::RegistrationResponse> registration =
      wa::parse_registration_response(sent, problem);
  // Every refusal says why (the 400's detail), and only a refusal does.
  require(registration.has_value() == problem.empty());
  if (!problem.empty()) require(problem.starts_with("credential"));
  problem.clear();
  std::optional<wa::AssertionResponse> assertion = wa::parse_assertion_response(sent, problem);
  require(assertion.has_value() == problem.empty());
  if (!problem.empty()) require(problem.starts_with("credential"));

  if (registration) {
    const wa::AssertionResponse none;
    const wa::AssertionResponse& signed_after = assertion ? *assertion : none;
    verify_registration(*registration, wa::challenge_of(registration->client_data_json),
                        signed_after, wa::challenge_of(signed_after.client_data_json),
                        signed_after.user_handle.has_value());
  }
  if (assertion) {
    const std::optional<std::string> expected = wa::challenge_of(assertion->client_data_json);
    // A passwordless sign-in (its user handle names the account), else a
    // second factor.
    const bool require_uv = assertion->user_handle.has_value();
    for (const wa::StoredCredential& credential : stored_credentials())
      verify_assertion(*assertion, expected, credential, require_uv);
  }
}

void fuzz_json(std::string_view text) {
  const json parsed = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (parsed.is_discarded()) return;
  fuzz_credential_json(parsed);
  if (parsed.is_object()) {
    auto credential = parsed.find("credential");
    if (credential != parsed.end()) fuzz_credential_json(*credential);
  }
}

// webauthn_data.hpp on its own.
void fuzz_data(std::string_view attestation_object, std::string_view authenticator_data) {
  for (std::string_view bytes : {attestation_object, authenticator_data}) {
    std::optional<wa::AuthenticatorData> data = wa::parse_authenticator_data(bytes);
    require(data.has_value() == (bytes.size() >= wa::kAuthenticatorDataMinimum));
    if (data) require(data->rp_id_hash.size() == 32 && inside(data->rp_id_hash, bytes));
    std::optional<wa::AttestedCredential> attested = wa::attested_credential(bytes);
    if (attested) {
      require(!attested->cose_key.empty() && inside(attested->credential_id, bytes) &&
              inside(attested->cose_key, bytes));
      require(attested->cose_key.data() + attested->cose_key.size() == bytes.data() + bytes.size());
      wa::cose_algorithm(attested->cose_key);
    }
    wa::cose_algorithm(bytes);
  }
  std::optional<wa::AttestationObject> attestation =
      wa::parse_attestation_object(attestation_object);
  if (!attestation) return;
  const std::string_view inner = attestation->authenticator_data;
  require(wa::parse_authenticator_data(inner).has_value() ==
          (inner.size() >= wa::kAuthenticatorDataMinimum));
  std::optional<wa::AttestedCredential> attested = wa::attested_credential(inner);
  if (attested) {
    require(!attested->cose_key.empty());
    wa::cose_algorithm(attested->cose_key);
  }
}

void fuzz_raw(std::string_view input) {
  if (input.empty()) return;
  const auto control = static_cast<std::uint8_t>(input[0]);
  input.remove_prefix(1);
  std::string_view fields[kFields];
  std::size_t present = 0;
  while (present < kFields) {
    const std::size_t at = input.find(kSeparator);
    fields[present++] = input.substr(0, at);
    if (at == std::string_view::npos) break;
    input.remove_prefix(at + kSeparator.size());
  }

  fuzz_data(fields[kAttestationObject], fields[kAuthenticatorData]);

  // The expected challenges: the ones the clientDataJSONs carry.
  auto expected_of = [&](const std::string& client_data_json) {
    return flag(control, kNoExpectedChallenge) ? std::nullopt : wa::challenge_of(client_data_json);
  };
  const bool require_uv = flag(control, kRequireUserVerification);

  wa::AssertionResponse assertion;
  assertion.client_data_json =
      std::string(fields[present > kAssertionClientData ? kAssertionClientData : kClientData]);
  assertion.authenticator_data = std::string(fields[kAuthenticatorData]);
  assertion.signature = std::string(fields[kSignature]);
  const unsigned user_handle = (control >> kUserHandleShift) & 3U;

  wa::RegistrationResponse registration;
  registration.client_data_json = std::string(fields[kClientData]);
  registration.attestation_object = std::string(fields[kAttestationObject]);
  if (flag(control, kRegistrationIdFromField)) {
    registration.id = std::string(fields[kId]);
  } else if (auto object = wa::parse_attestation_object(registration.attestation_object)) {
    if (auto attested = wa::attested_credential(object->authenticator_data))
      registration.id = std::string(attested->credential_id);
  }
  if (user_handle >= 2) assertion.user_handle = std::string(fields[kUserHandle]);
  if (user_handle == 1) assertion.user_handle = "fuzz-user-handle";
  verify_registration(registration, expected_of(registration.client_data_json), assertion,
                      expected_of(assertion.client_data_json), require_uv);

  for (wa::StoredCredential credential : stored_credentials()) {
    credential.sign_count = kStoredSignCounts[control >> kSignCountShift];
    assertion.id = flag(control, kAssertionIdFromField) ? std::string(fields[kId]) : credential.id;
    verify_assertion(assertion, expected_of(assertion.client_data_json), credential, require_uv);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  stored_credentials();
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  fuzz_json(input);
  fuzz_raw(input);
  return 0;
}
