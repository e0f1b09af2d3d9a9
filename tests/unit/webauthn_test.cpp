// Passkey verification (interface.md 16.7), against responses made as a
// browser and an authenticator make them (support/soft_authenticator.hpp).
// Each refusal bends one thing in an otherwise valid response, so that the
// check it names fails, and fails first: without that check the response
// would pass (the happy paths show it), or fail a later one.
#include <gtest/gtest.h>

#include <functional>
#include <ostream>

#include <nlohmann/json.hpp>

#include "crypto/webauthn.hpp"
#include "support/soft_authenticator.hpp"

namespace authd::webauthn {

// Failures print as interface.md 16.7 names the check.
void PrintTo(Check check, std::ostream* os) { *os << check_name(check); }

namespace {

using nlohmann::json;
using test_support::from_base64url;
using test_support::SoftAuthenticator;
using test_support::Tamper;
using test_support::to_base64url;

constexpr std::optional<Check> kAccepted = std::nullopt;

// The flags of the authenticator data (WebAuthn 6.1).
constexpr std::uint8_t kUp = 0x01, kUv = 0x04, kBe = 0x08, kBs = 0x10, kAt = 0x40;

// The page is on a subdomain of the RP ID, as --webauthn-origins allows.
const std::string kOrigin = "https://login.example.com";
const RelyingParty kRp{"example.com", {"https://example.com", kOrigin}};
const std::string kChallenge = "32 bytes of a challenge issued..";
const std::string kUserHandle = "0190a3c2-7b1e-7c4d-8e2f-3a4b5c6d7e8f";

// As 16.2.1 and 16.3.1 answer.
json creation_options() {
  return {
      {"publicKey",
       {{"challenge", to_base64url(kChallenge)},
        {"rp", {{"id", kRp.id}, {"name", "authd"}}},
        {"user",
         {{"id", to_base64url(kUserHandle)}, {"name", "ada@example.com"}, {"displayName", "Ada"}}},
        {"pubKeyCredParams",
         {{{"type", "public-key"}, {"alg", -7}}, {{"type", "public-key"}, {"alg", -8}}}},
        {"timeout", 300000},
        {"attestation", "none"},
        {"authenticatorSelection",
         {{"residentKey", "required"},
          {"requireResidentKey", true},
          {"userVerification", "required"}}},
        {"excludeCredentials", json::array()}}}};
}

json request_options() {
  return {{"publicKey",
           {{"challenge", to_base64url(kChallenge)},
            {"rpId", kRp.id},
            {"timeout", 300000},
            {"userVerification", "required"},
            {"allowCredentials", json::array()}}}};
}

RegistrationResponse registration_of(const json& credential) {
  std::string problem;
  std::optional<RegistrationResponse> response = parse_registration_response(credential, problem);
  EXPECT_TRUE(response) << problem;
  return response.value_or(RegistrationResponse{});
}

AssertionResponse assertion_of(const json& credential) {
  std::string problem;
  std::optional<AssertionResponse> response = parse_assertion_response(credential, problem);
  EXPECT_TRUE(response) << problem;
  return response.value_or(AssertionResponse{});
}

RegistrationResult register_with(SoftAuthenticator& authenticator, const Tamper& tamper = {},
                                 const std::optional<std::string>& expected = kChallenge) {
  return verify_registration(
      registration_of(authenticator.create(creation_options(), kOrigin, tamper)), kRp, expected);
}

std::optional<Check> registration_failure(const Tamper& tamper, int algorithm = kEs256) {
  SoftAuthenticator authenticator(algorithm);
  return register_with(authenticator, tamper).failed;
}

// A registration whose attestation object is make(its authenticator data).
std::optional<Check> registration_failure_with_object(
    const std::function<std::string(const std::string&)>& make) {
  SoftAuthenticator authenticator;
  json credential = authenticator.create(creation_options(), kOrigin);
  json& response = credential["response"];
  const std::string authenticator_data = from_base64url(response["authenticatorData"]);
  response["attestationObject"] = to_base64url(make(authenticator_data));
  return verify_registration(registration_of(credential), kRp, kChallenge).failed;
}

// CBOR heads (RFC 8949 3.1) for the attestation objects written by hand.
std::string cbor_head(int major, std::size_t length) {
  const char type = static_cast<char>(major << 5);
  if (length < 24) return {static_cast<char>(type | static_cast<char>(length))};
  if (length < 256) return {static_cast<char>(type | 24), static_cast<char>(length)};
  return {static_cast<char>(type | 25), static_cast<char>(length >> 8),
          static_cast<char>(length & 0xFF)};
}
std::string cbor_bytes(const std::string& bytes) { return cbor_head(2, bytes.size()) + bytes; }
std::string cbor_text(const std::string& text) { return cbor_head(3, text.size()) + text; }
const std::string kEmptyMap = cbor_head(5, 0);
// A map header declaring 2^32 - 1 pairs, in 5 bytes: libcbor would
// allocate them all before finding none there.
const std::string kHugeMap = std::string("\xba\xff\xff\xff\xff", 5);

// {"fmt": "none", "attStmt": {}, "authData": ...}, less what `leave_out` names.
std::string attestation_object(const std::string& authenticator_data,
                               const std::string& leave_out = "") {
  std::string members;
  std::size_t count = 0;
  for (const auto& [name, value] :
       {std::pair{"fmt", cbor_text("none")}, std::pair{"attStmt", kEmptyMap},
        std::pair{"authData", cbor_bytes(authenticator_data)}}) {
    if (name == leave_out) continue;
    members += cbor_text(name) + value;
    ++count;
  }
  return cbor_head(5, count) + members;
}

// An authenticator and its passkey, registered and stored as authd stores it.
struct Passkey {
  explicit Passkey(int algorithm = kEs256, bool counts = true) : authenticator(algorithm, counts) {
    RegistrationResult registered = register_with(authenticator);
    EXPECT_EQ(registered.failed, kAccepted);
    stored = registered.credential;
    stored.user_handle = kUserHandle;
  }

  AssertionResponse response(const Tamper& tamper = {}) {
    return assertion_of(authenticator.get(request_options(), kOrigin, tamper));
  }

  // A passwordless sign-in (user verification required), or a second
  // factor; the stored counter moves as authd's would.
  AssertionResult sign_in(const Tamper& tamper = {}, bool passwordless = true) {
    AssertionResult result =
        verify_assertion(response(tamper), kRp, kChallenge, stored, passwordless);
    if (!result.failed) stored.sign_count = result.sign_count;
    return result;
  }

  SoftAuthenticator authenticator;
  StoredCredential stored;
};

std::optional<Check> sign_in_failure(const Tamper& tamper, bool passwordless = true) {
  Passkey passkey;
  return passkey.sign_in(tamper, passwordless).failed;
}

// --- Registration (16.7.1) ---

TEST(Webauthn, Interface_16_7_1_RegistersAnEs256Passkey) {
  SoftAuthenticator authenticator(kEs256);
  RegistrationResult result = register_with(authenticator);
  ASSERT_EQ(result.failed, kAccepted);
  EXPECT_EQ(result.credential.id, authenticator.last_credential().id);
  EXPECT_EQ(result.credential.algorithm, kEs256);
  EXPECT_EQ(result.credential.public_key.size(), 64u);  // x || y
  EXPECT_EQ(result.credential.sign_count, 0u);
  EXPECT_FALSE(result.backup_eligible);
  EXPECT_FALSE(result.backed_up);
}

TEST(Webauthn, Interface_16_7_1_RegistersAnEdDsaPasskey) {
  SoftAuthenticator authenticator(kEdDsa);
  RegistrationResult result = register_with(authenticator);
  ASSERT_EQ(result.failed, kAccepted);
  EXPECT_EQ(result.credential.id, authenticator.last_credential().id);
  EXPECT_EQ(result.credential.algorithm, kEdDsa);
  EXPECT_EQ(result.credential.public_key.size(), 32u);
}

TEST(Webauthn, Interface_16_7_1_RegistrationReadsTheBackupFlags) {
  SoftAuthenticator synced;
  RegistrationResult result = register_with(synced, {.flags = kUp | kUv | kAt | kBe | kBs});
  ASSERT_EQ(result.failed, kAccepted);
  EXPECT_TRUE(result.backup_eligible);
  EXPECT_TRUE(result.backed_up);
  SoftAuthenticator eligible;
  result = register_with(eligible, {.flags = kUp | kUv | kAt | kBe});
  ASSERT_EQ(result.failed, kAccepted);
  EXPECT_TRUE(result.backup_eligible);
  EXPECT_FALSE(result.backed_up);
}

TEST(Webauthn, Interface_16_7_1_RegistrationRefusesClientDataNotAnObjectWithItsStrings) {
  const std::string challenge = to_base64url(kChallenge);
  for (const std::string& client_data : {
           std::string("not JSON"),
           std::string("[]"),
           std::string(R"({"type":"webauthn.create","origin":")" + kOrigin + R"("})"),
           std::string(R"({"challenge":")" + challenge + R"(","origin":")" + kOrigin + R"("})"),
           std::string(R"({"type":"webauthn.create","challenge":")" + challenge + R"("})"),
           std::string(R"({"type":"webauthn.create","challenge":7,"origin":")" + kOrigin + R"("})"),
           std::string(R"({"type":"webauthn.create","challenge":")" + challenge +
                       R"(","origin":")" + kOrigin + R"(","crossOrigin":"no"})"),
           // Valid JSON up to a NUL byte, which nlohmann would take for the end.
           std::string(R"({"type":"webauthn.create","challenge":")" + challenge +
                       R"(","origin":")" + kOrigin + R"("})" + std::string("\0garbage", 8)),
       })
    EXPECT_EQ(registration_failure({.client_data_json = client_data}), Check::client_data)
        << client_data;
}

TEST(Webauthn, Interface_16_7_1_RegistrationRefusesAWrongType) {
  EXPECT_EQ(registration_failure({.type = "webauthn.get"}), Check::type);
  EXPECT_EQ(registration_failure({.type = ""}), Check::type);
}

TEST(Webauthn, Interface_16_7_1_RegistrationRefusesAChallengeNotIssued) {
  EXPECT_EQ(registration_failure({.challenge_b64url = to_base64url(std::string(32, 'x'))}),
            Check::challenge);
  // A prefix of the issued challenge, and one that is not base64url.
  EXPECT_EQ(registration_failure({.challenge_b64url = to_base64url(kChallenge.substr(0, 31))}),
            Check::challenge);
  EXPECT_EQ(registration_failure({.challenge_b64url = to_base64url(kChallenge) + "="}),
            Check::challenge);
  // No stored challenge found for it (unknown, used or expired).
  SoftAuthenticator authenticator;
  EXPECT_EQ(register_with(authenticator, {}, std::nullopt).failed, Check::challenge);
}

TEST(Webauthn, Interface_16_7_1_RegistrationRefusesAnOriginNotListed) {
  for (const char* origin : {"https://evil.example", "https://example.com:8443",
                             "http://example.com", "https://example.com/", "https://EXAMPLE.com"})
    EXPECT_EQ(registration_failure({.origin = origin}), Check::origin) << origin;
  EXPECT_EQ(registration_failure({.origin = "https://example.com"}), kAccepted);
}

TEST(Webauthn, Interface_16_7_1_RegistrationRefusesCrossOriginTrueOnly) {
  EXPECT_EQ(registration_failure({.cross_origin = true}), Check::cross_origin);
  // Absent is not cross-origin (WebAuthn Level 1 browsers omit it).
  const std::string client_data = R"({"type":"webauthn.create","challenge":")" +
                                  to_base64url(kChallenge) + R"(","origin":")" + kOrigin + R"("})";
  EXPECT_EQ(registration_failure({.client_data_json = client_data}), kAccepted);
}

TEST(Webauthn, Interface_16_7_1_RegistrationRefusesAnAttestationObjectNotTheMapItMustBe) {
  // The object written by hand is accepted as the authenticator's is...
  EXPECT_EQ(registration_failure_with_object(
                [](const std::string& data) { return attestation_object(data); }),
            kAccepted);
  // ...and each of these is not it.
  const std::vector<std::function<std::string(const std::string&)>> malformed = {
      [](const std::string&) { return std::string(); },
      [](const std::string&) { return std::string("\xff"); },
      [](const std::string& data) { return attestation_object(data) + '\0'; },
      [](const std::string& data) {  // an array of the three values
        return cbor_head(4, 3) + cbor_text("none") + kEmptyMap + cbor_bytes(data);
      },
      [](const std::string& data) {  // indefinite length
        std::string object = attestation_object(data);
        return "\xbf" + object.substr(1) + "\xff";
      },
      [](const std::string& data) { return attestation_object(data, "fmt"); },
      [](const std::string& data) { return attestation_object(data, "attStmt"); },
      [](const std::string& data) { return attestation_object(data, "authData"); },
      [](const std::string& data) {  // authData as text
        return cbor_head(5, 3) + cbor_text("fmt") + cbor_text("none") + cbor_text("attStmt") +
               kEmptyMap + cbor_text("authData") + cbor_text(data);
      },
      [](const std::string& data) {  // attStmt an array
        return cbor_head(5, 3) + cbor_text("fmt") + cbor_text("none") + cbor_text("attStmt") +
               cbor_head(4, 0) + cbor_text("authData") + cbor_bytes(data);
      },
      [](const std::string& data) { return attestation_object(data) + kHugeMap; },
      [](const std::string&) { return kHugeMap; },
      [](const std::string& data) {  // nested deeper than any WebAuthn structure
        return std::string(1000, '\x81') + attestation_object(data);
      },
      [](const std::string& data) {  // fmt twice
        return cbor_head(5, 4) + cbor_text("fmt") + cbor_text("none") + cbor_text("fmt") +
               cbor_text("none") + cbor_text("attStmt") + kEmptyMap + cbor_text("authData") +
               cbor_bytes(data);
      },
  };
  for (std::size_t i = 0; i < malformed.size(); ++i)
    EXPECT_EQ(registration_failure_with_object(malformed[i]), Check::attestation_object) << i;
}

TEST(Webauthn, Interface_16_7_1_RegistrationRefusesAuthenticatorDataShorterThan37Bytes) {
  EXPECT_EQ(registration_failure({.authenticator_data_size = 36}), Check::authenticator_data);
  EXPECT_EQ(registration_failure({.authenticator_data_size = 0}), Check::authenticator_data);
}

TEST(Webauthn, Interface_16_7_1_RegistrationRefusesAnotherRpIdHash) {
  EXPECT_EQ(registration_failure({.rp_id = "evil.example"}), Check::rp_id_hash);
  // The origin's host is not the RP ID.
  EXPECT_EQ(registration_failure({.rp_id = "login.example.com"}), Check::rp_id_hash);
}

TEST(Webauthn, Interface_16_7_1_RegistrationRefusesWithoutUserPresence) {
  EXPECT_EQ(registration_failure({.flags = kUv | kAt}), Check::user_present);
}

TEST(Webauthn, Interface_16_7_1_RegistrationRefusesWithoutUserVerification) {
  EXPECT_EQ(registration_failure({.flags = kUp | kAt}), Check::user_verified);
}

TEST(Webauthn, Interface_16_7_1_RegistrationRefusesWithoutAttestedCredentialData) {
  // The data is there, the AT flag is not.
  EXPECT_EQ(registration_failure({.flags = kUp | kUv}), Check::attested_credential_data);
  // The flag is there, the data cut: in the id's length, after the id (16
  // bytes), before the key.
  EXPECT_EQ(registration_failure({.authenticator_data_size = 37 + 16 + 1}),
            Check::attested_credential_data);
  EXPECT_EQ(registration_failure({.authenticator_data_size = 37 + 16 + 2 + 15}),
            Check::attested_credential_data);
  EXPECT_EQ(registration_failure({.authenticator_data_size = 37 + 16 + 2 + 16}),
            Check::attested_credential_data);
  // After the key, extensions that are no CBOR libcbor should load.
  EXPECT_EQ(registration_failure({.extensions = kHugeMap}), Check::attested_credential_data);
  EXPECT_EQ(registration_failure({.extensions = "\x1c"}), Check::attested_credential_data);
}

TEST(Webauthn, Interface_16_7_1_RegistrationAcceptsExtensionOutputs) {
  const std::string cred_protect = cbor_head(5, 1) + cbor_text("credProtect") + '\x01';
  EXPECT_EQ(registration_failure({.extensions = cred_protect}), kAccepted);
  EXPECT_EQ(registration_failure({.extensions = cred_protect}, kEdDsa), kAccepted);
}

TEST(Webauthn, Interface_16_7_1_RegistrationRefusesACredentialIdEmptyTooLongOrNotTheRawId) {
  EXPECT_EQ(registration_failure({.credential_id = std::string(16, 'x')}), Check::credential_id);
  EXPECT_EQ(registration_failure({.new_credential_id = ""}), Check::credential_id);
  EXPECT_EQ(registration_failure({.new_credential_id = std::string(1024, 'x')}),
            Check::credential_id);
  EXPECT_EQ(registration_failure({.new_credential_id = std::string(1023, 'x')}), kAccepted);
  EXPECT_EQ(registration_failure({.new_credential_id = "x"}), kAccepted);
}

TEST(Webauthn, Interface_16_7_1_RegistrationRefusesAnAlgorithmOtherThanEs256OrEdDsa) {
  EXPECT_EQ(registration_failure({.cose_alg = -257}), Check::algorithm);  // RS256
  EXPECT_EQ(registration_failure({.cose_alg = -35}), Check::algorithm);   // ES384
  EXPECT_EQ(registration_failure({.cose_alg = 7}), Check::algorithm);
  EXPECT_EQ(registration_failure({.cose_alg = -257}, kEdDsa), Check::algorithm);
}

TEST(Webauthn, Interface_16_7_1_RegistrationRefusesAPublicKeyNotOfItsAlgorithm) {
  EXPECT_EQ(registration_failure({.bad_public_key = true}, kEs256), Check::public_key);
  EXPECT_EQ(registration_failure({.bad_public_key = true}, kEdDsa), Check::public_key);
  // A P-256 key said to be EdDSA, an Ed25519 key said to be ES256.
  EXPECT_EQ(registration_failure({.cose_alg = kEdDsa}, kEs256), Check::public_key);
  EXPECT_EQ(registration_failure({.cose_alg = kEs256}, kEdDsa), Check::public_key);
}

TEST(Webauthn, Interface_16_7_1_RegistrationRefusesAttestationOtherThanNone) {
  EXPECT_EQ(registration_failure({.fmt = "packed"}), Check::attestation);
  EXPECT_EQ(registration_failure({.attestation_statement = true}), Check::attestation);
  EXPECT_EQ(registration_failure({.fmt = "packed", .attestation_statement = true}),
            Check::attestation);
}

TEST(Webauthn, Interface_16_7_TheFirstFailingCheckDecides) {
  EXPECT_EQ(registration_failure({.type = "webauthn.get", .origin = "https://evil.example"}),
            Check::type);
  EXPECT_EQ(registration_failure({.rp_id = "evil.example", .flags = 0, .fmt = "packed"}),
            Check::rp_id_hash);
  EXPECT_EQ(sign_in_failure({.origin = "https://evil.example", .corrupt_signature = true}),
            Check::origin);
}

// --- Sign-in and second factor (16.7.2) ---

TEST(Webauthn, Interface_16_7_2_TheEs256KeyStoredAtRegistrationVerifiesSignIns) {
  Passkey passkey(kEs256);
  AssertionResult first = passkey.sign_in();
  ASSERT_EQ(first.failed, kAccepted);
  EXPECT_EQ(first.sign_count, 1u);
  EXPECT_FALSE(first.backed_up);
  AssertionResult second = passkey.sign_in();
  ASSERT_EQ(second.failed, kAccepted);
  EXPECT_EQ(second.sign_count, 2u);
  // The key is the authenticator's: another's signature does not verify.
  Passkey other(kEs256);
  StoredCredential wrong_key = passkey.stored;
  wrong_key.public_key = other.stored.public_key;
  EXPECT_EQ(verify_assertion(passkey.response(), kRp, kChallenge, wrong_key, true).failed,
            Check::signature);
}

TEST(Webauthn, Interface_16_7_2_TheEdDsaKeyStoredAtRegistrationVerifiesSignIns) {
  Passkey passkey(kEdDsa);
  AssertionResult result = passkey.sign_in();
  ASSERT_EQ(result.failed, kAccepted);
  EXPECT_EQ(result.sign_count, 1u);
  EXPECT_EQ(passkey.sign_in().failed, kAccepted);
}

TEST(Webauthn, Interface_16_7_2_SignInReadsTheBackedUpFlag) {
  Passkey passkey;
  AssertionResult result = passkey.sign_in({.flags = kUp | kUv | kBe | kBs});
  ASSERT_EQ(result.failed, kAccepted);
  EXPECT_TRUE(result.backed_up);
}

TEST(Webauthn, Interface_16_7_2_SignInRefusesAnotherCredentialId) {
  EXPECT_EQ(sign_in_failure({.credential_id = std::string(16, 'x')}), Check::credential_id);
  EXPECT_EQ(sign_in_failure({.credential_id = std::string(16, 'x')}, false), Check::credential_id);
}

TEST(Webauthn, Interface_16_7_2_SignInRefusesAnotherAccountsUserHandle) {
  EXPECT_EQ(sign_in_failure({.user_handle = "another account"}), Check::user_handle);
  EXPECT_EQ(sign_in_failure({.user_handle = "another account"}, false), Check::user_handle);
  // Required for a sign-in, which learns the account from it alone...
  EXPECT_EQ(sign_in_failure({.omit_user_handle = true}), Check::user_handle);
  // ...not for a second factor, whose account is the password's.
  EXPECT_EQ(sign_in_failure({.omit_user_handle = true}, false), kAccepted);
}

TEST(Webauthn, Interface_16_7_2_SignInRefusesClientDataNotAnObjectWithItsStrings) {
  const std::string challenge = to_base64url(kChallenge);
  for (const std::string& client_data : {
           std::string("{"),
           std::string(R"("webauthn.get")"),
           std::string(R"({"type":"webauthn.get","challenge":")" + challenge + R"("})"),
           std::string(R"({"type":["webauthn.get"],"challenge":")" + challenge + R"(","origin":")" +
                       kOrigin + R"("})"),
       })
    EXPECT_EQ(sign_in_failure({.client_data_json = client_data}), Check::client_data)
        << client_data;
}

TEST(Webauthn, Interface_16_7_2_SignInRefusesAWrongType) {
  EXPECT_EQ(sign_in_failure({.type = "webauthn.create"}), Check::type);
  EXPECT_EQ(sign_in_failure({.type = "payment.get"}), Check::type);
}

TEST(Webauthn, Interface_16_7_2_SignInRefusesAChallengeNotIssued) {
  EXPECT_EQ(sign_in_failure({.challenge_b64url = to_base64url(std::string(32, 'x'))}),
            Check::challenge);
  EXPECT_EQ(sign_in_failure({.challenge_b64url = "not base64url!"}), Check::challenge);
  Passkey passkey;
  EXPECT_EQ(verify_assertion(passkey.response(), kRp, std::nullopt, passkey.stored, true).failed,
            Check::challenge);
}

TEST(Webauthn, Interface_16_7_2_SignInRefusesAnOriginNotListed) {
  EXPECT_EQ(sign_in_failure({.origin = "https://evil.example"}), Check::origin);
  EXPECT_EQ(sign_in_failure({.origin = "https://login.example.com:444"}), Check::origin);
}

TEST(Webauthn, Interface_16_7_2_SignInRefusesCrossOrigin) {
  EXPECT_EQ(sign_in_failure({.cross_origin = true}), Check::cross_origin);
}

TEST(Webauthn, Interface_16_7_2_SignInRefusesAuthenticatorDataShortOrMalformed) {
  EXPECT_EQ(sign_in_failure({.authenticator_data_size = 36}), Check::authenticator_data);
  // Extensions that are no CBOR libcbor should load (libfido2 loads them).
  EXPECT_EQ(sign_in_failure({.extensions = kHugeMap}), Check::authenticator_data);
  EXPECT_EQ(sign_in_failure({.extensions = "\x1c"}), Check::authenticator_data);
}

TEST(Webauthn, Interface_16_7_2_SignInAcceptsExtensionOutputs) {
  const std::string payment = cbor_head(5, 1) + cbor_text("thirdPartyPayment") + '\xf5';
  EXPECT_EQ(sign_in_failure({.extensions = payment}), kAccepted);
  Passkey eddsa(kEdDsa);
  EXPECT_EQ(eddsa.sign_in({.extensions = payment}).failed, kAccepted);
}

TEST(Webauthn, Interface_16_7_2_SignInRefusesAnotherRpIdHash) {
  EXPECT_EQ(sign_in_failure({.rp_id = "evil.example"}), Check::rp_id_hash);
  EXPECT_EQ(sign_in_failure({.rp_id = "evil.example"}, false), Check::rp_id_hash);
}

TEST(Webauthn, Interface_16_7_2_SignInRefusesWithoutUserPresence) {
  EXPECT_EQ(sign_in_failure({.flags = kUv}), Check::user_present);
  EXPECT_EQ(sign_in_failure({.flags = 0}, false), Check::user_present);
}

TEST(Webauthn, Interface_16_7_2_SignInRefusesWithoutUserVerification) {
  EXPECT_EQ(sign_in_failure({.flags = kUp}), Check::user_verified);
}

// 16.4.1: for a second factor, presence is enough (the password was the
// other factor).
TEST(Webauthn, Interface_16_7_2_SecondFactorNeedsPresenceNotVerification) {
  EXPECT_EQ(sign_in_failure({.flags = kUp}, false), kAccepted);
  EXPECT_EQ(sign_in_failure({.flags = kUp | kUv}, false), kAccepted);
}

TEST(Webauthn, Interface_16_7_2_SignInRefusesASignatureThatDoesNotVerify) {
  EXPECT_EQ(sign_in_failure({.corrupt_signature = true}), Check::signature);
  EXPECT_EQ(sign_in_failure({.corrupt_signature = true}, false), Check::signature);
  Passkey eddsa(kEdDsa);
  EXPECT_EQ(eddsa.sign_in({.corrupt_signature = true}).failed, Check::signature);
  // No signature at all; the key said to be of the other algorithm.
  Passkey passkey;
  AssertionResponse unsigned_response = passkey.response();
  unsigned_response.signature.clear();
  EXPECT_EQ(verify_assertion(unsigned_response, kRp, kChallenge, passkey.stored, true).failed,
            Check::signature);
  StoredCredential mislabelled = passkey.stored;
  mislabelled.algorithm = kEdDsa;
  EXPECT_EQ(verify_assertion(passkey.response(), kRp, kChallenge, mislabelled, true).failed,
            Check::signature);
}

TEST(Webauthn, Interface_16_7_2_SignInRefusesACounterThatDidNotGrow) {
  Passkey passkey;
  passkey.stored.sign_count = 5;
  EXPECT_EQ(passkey.sign_in({.counter = 5}).failed, Check::sign_count);
  EXPECT_EQ(passkey.sign_in({.counter = 4}).failed, Check::sign_count);
  // A counter back to 0 after counting is no counterless authenticator.
  EXPECT_EQ(passkey.sign_in({.counter = 0}).failed, Check::sign_count);
  AssertionResult grown = passkey.sign_in({.counter = 6});
  EXPECT_EQ(grown.failed, kAccepted);
  EXPECT_EQ(grown.sign_count, 6u);
}

TEST(Webauthn, Interface_16_7_2_ACounterOfZeroStayingZeroIsAccepted) {
  Passkey passkey(kEs256, /*counts=*/false);
  EXPECT_EQ(passkey.stored.sign_count, 0u);
  for (int i = 0; i < 2; ++i) {
    AssertionResult result = passkey.sign_in();
    EXPECT_EQ(result.failed, kAccepted);
    EXPECT_EQ(result.sign_count, 0u);
  }
}

// --- The responses' shape (16.2.2, 16.3.2) ---

json registration_json() {
  SoftAuthenticator authenticator;
  return authenticator.create(creation_options(), kOrigin);
}

json assertion_json() {
  Passkey passkey;
  return passkey.authenticator.get(request_options(), kOrigin);
}

TEST(Webauthn, Interface_16_2_2_RegistrationResponseIsDecodedFromToJson) {
  const json credential = registration_json();
  std::string problem;
  std::optional<RegistrationResponse> response = parse_registration_response(credential, problem);
  ASSERT_TRUE(response) << problem;
  EXPECT_EQ(response->id, from_base64url(credential["rawId"]));
  EXPECT_EQ(response->client_data_json, from_base64url(credential["response"]["clientDataJSON"]));
  EXPECT_EQ(response->attestation_object,
            from_base64url(credential["response"]["attestationObject"]));
  EXPECT_EQ(challenge_of(response->client_data_json), kChallenge);
}

// The problem with a registration's `pointer` removed, or replaced by
// `value` (empty when it parses).
std::string registration_problem(const std::string& pointer,
                                 const std::optional<json>& value = std::nullopt) {
  json credential = registration_json();
  if (value)
    credential[json::json_pointer(pointer)] = *value;
  else
    credential[json::json_pointer(pointer).parent_pointer()].erase(
        json::json_pointer(pointer).back());
  std::string problem;
  parse_registration_response(credential, problem);
  return problem;
}

TEST(Webauthn, Interface_16_2_2_RegistrationResponseNeedsEachMember) {
  EXPECT_EQ(registration_problem("/id"), "credential.id: required");
  EXPECT_EQ(registration_problem("/rawId"), "credential.rawId: required");
  EXPECT_EQ(registration_problem("/type"), "credential.type: must be \"public-key\"");
  EXPECT_EQ(registration_problem("/response"), "credential.response: must be a JSON object");
  EXPECT_EQ(registration_problem("/response/clientDataJSON"),
            "credential.response.clientDataJSON: required");
  EXPECT_EQ(registration_problem("/response/attestationObject"),
            "credential.response.attestationObject: required");
  EXPECT_EQ(registration_problem("/response/clientDataJSON", 7),
            "credential.response.clientDataJSON: must be a string");
  EXPECT_EQ(registration_problem("/response", "{}"), "credential.response: must be a JSON object");
  std::string problem;
  EXPECT_FALSE(parse_registration_response(json::array(), problem));
  EXPECT_EQ(problem, "credential: must be a JSON object");
}

TEST(Webauthn, Interface_16_2_2_RegistrationResponseIsBase64urlWithoutPadding) {
  EXPECT_EQ(registration_problem("/response/clientDataJSON", to_base64url("{}")), "");
  // Padded, base64 (not url), white space, a last character with bits left over.
  for (const char* text : {"e30=", "YQ==", "ab+/", "YWJj ZA", "YR"})
    EXPECT_EQ(registration_problem("/response/clientDataJSON", text),
              "credential.response.clientDataJSON: not base64url")
        << text;
  EXPECT_EQ(registration_problem("/rawId", "a"), "credential.rawId: not base64url");
}

TEST(Webauthn, Interface_16_2_2_RegistrationResponseIdMustBeTheRawId) {
  EXPECT_EQ(registration_problem("/id", to_base64url("another id")),
            "credential.id: must be rawId");
}

TEST(Webauthn, Interface_16_2_2_RegistrationResponseTypeMustBePublicKey) {
  EXPECT_EQ(registration_problem("/type", "password"), "credential.type: must be \"public-key\"");
  EXPECT_EQ(registration_problem("/type", nullptr), "credential.type: must be \"public-key\"");
}

TEST(Webauthn, Interface_16_3_2_AssertionResponseIsDecodedFromToJson) {
  json credential = assertion_json();
  std::string problem;
  std::optional<AssertionResponse> response = parse_assertion_response(credential, problem);
  ASSERT_TRUE(response) << problem;
  EXPECT_EQ(response->id, from_base64url(credential["rawId"]));
  EXPECT_EQ(response->authenticator_data.size(), 37u);
  EXPECT_EQ(response->signature, from_base64url(credential["response"]["signature"]));
  EXPECT_EQ(response->user_handle, kUserHandle);
  // userHandle null or absent: none.
  credential["response"]["userHandle"] = nullptr;
  response = parse_assertion_response(credential, problem);
  ASSERT_TRUE(response) << problem;
  EXPECT_FALSE(response->user_handle);
  credential["response"].erase("userHandle");
  response = parse_assertion_response(credential, problem);
  ASSERT_TRUE(response) << problem;
  EXPECT_FALSE(response->user_handle);
}

TEST(Webauthn, Interface_16_3_2_AssertionResponseNeedsEachMember) {
  for (const char* member : {"clientDataJSON", "authenticatorData", "signature"}) {
    json credential = assertion_json();
    credential["response"].erase(member);
    std::string problem;
    EXPECT_FALSE(parse_assertion_response(credential, problem));
    EXPECT_EQ(problem, std::string("credential.response.") + member + ": required");
  }
  json credential = assertion_json();
  credential["response"]["userHandle"] = 7;
  std::string problem;
  EXPECT_FALSE(parse_assertion_response(credential, problem));
  EXPECT_EQ(problem, "credential.response.userHandle: must be a string");
  credential = assertion_json();
  credential["response"]["signature"] = "a=";
  EXPECT_FALSE(parse_assertion_response(credential, problem));
  EXPECT_EQ(problem, "credential.response.signature: not base64url");
  credential = assertion_json();
  credential["rawId"] = to_base64url("another id");
  EXPECT_FALSE(parse_assertion_response(credential, problem));
  EXPECT_EQ(problem, "credential.id: must be rawId");
}

TEST(Webauthn, Interface_16_6_2_TheChallengeIsReadFromClientData) {
  const std::string challenge = to_base64url(kChallenge);
  EXPECT_EQ(challenge_of(R"({"type":"webauthn.get","challenge":")" + challenge + R"("})"),
            kChallenge);
  EXPECT_EQ(challenge_of(R"({"type":"webauthn.get"})"), std::nullopt);
  EXPECT_EQ(challenge_of(R"({"challenge":7})"), std::nullopt);
  EXPECT_EQ(challenge_of(R"({"challenge":"not base64url!"})"), std::nullopt);
  EXPECT_EQ(challenge_of("not JSON"), std::nullopt);
  EXPECT_EQ(challenge_of(R"(["challenge"])"), std::nullopt);
}

TEST(Webauthn, Interface_16_7_ChecksAreNamedAsTheContractNamesThem) {
  const std::pair<Check, const char*> names[] = {
      {Check::client_data, "clientData"},
      {Check::type, "type"},
      {Check::challenge, "challenge"},
      {Check::origin, "origin"},
      {Check::cross_origin, "crossOrigin"},
      {Check::attestation_object, "attestationObject"},
      {Check::authenticator_data, "authenticatorData"},
      {Check::rp_id_hash, "rpIdHash"},
      {Check::user_present, "userPresent"},
      {Check::user_verified, "userVerified"},
      {Check::attested_credential_data, "attestedCredentialData"},
      {Check::credential_id, "credentialId"},
      {Check::algorithm, "algorithm"},
      {Check::public_key, "publicKey"},
      {Check::attestation, "attestation"},
      {Check::user_handle, "userHandle"},
      {Check::signature, "signature"},
      {Check::sign_count, "signCount"},
  };
  for (const auto& [check, name] : names) EXPECT_STREQ(check_name(check), name);
}

}  // namespace
}  // namespace authd::webauthn
