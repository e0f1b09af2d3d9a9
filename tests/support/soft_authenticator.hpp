// A passkey authenticator in software, with the browser around it: real
// WebAuthn responses (W3C WebAuthn Level 2), as PublicKeyCredential.toJSON()
// writes them, for the creation and request options authd sends. Keys and
// signatures are OpenSSL's (P-256 ECDSA with SHA-256, Ed25519), the
// attestation object and the COSE key libcbor's: nothing shared with
// crypto/webauthn.cpp but the specification. `Tamper` bends one thing in a
// response, so that a test fails exactly one check of interface.md 16.7.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

struct evp_pkey_st;  // OpenSSL's EVP_PKEY

// Not authd::testing: inside namespace authd, that would hide GoogleTest's
// ::testing from code that writes testing::Message() (unity batches share
// declarations between test files).
namespace authd::test_support {

// Bytes are bytes (not base64url) unless a member says otherwise. Every
// member has an initializer, so that a test names only what it bends
// ({.flags = 0x01}) without -Wmissing-field-initializers.
struct Tamper {
  // clientDataJSON: its type (instead of webauthn.create / webauthn.get),
  // challenge (written as is), origin and crossOrigin; or all of it, sent
  // (and signed) instead of the one made.
  std::optional<std::string> type{};
  std::optional<std::string> challenge_b64url{};
  std::optional<std::string> origin{};
  bool cross_origin = false;
  std::optional<std::string> client_data_json{};
  // Authenticator data: the RP ID hashed instead of the options', the flags
  // byte instead of UP|UV (|AT at creation), the counter written instead of
  // the credential's; cut to `authenticator_data_size` bytes (then signed).
  std::optional<std::string> rp_id{};
  std::optional<std::uint8_t> flags{};
  std::optional<std::uint32_t> counter{};
  std::optional<std::size_t> authenticator_data_size{};
  // Extension outputs (CBOR, written as is) after the rest of the
  // authenticator data, with the ED flag.
  std::optional<std::string> extensions{};
  // create() only: the new credential's id (in authData and rawId); the
  // COSE key's alg written (e.g. -257); a bad key (ES256: a point off the
  // curve, EdDSA: x of 31 bytes); fmt instead of "none"; a non-empty
  // attStmt; or the whole attestation object, sent instead of the one made.
  std::optional<std::string> new_credential_id{};
  std::optional<int> cose_alg{};
  bool bad_public_key = false;
  std::optional<std::string> fmt{};
  bool attestation_statement = false;
  std::optional<std::string> attestation_object{};
  // Both: the id and rawId sent, instead of the credential's.
  std::optional<std::string> credential_id{};
  // get() only: one bit of the signature flipped; the userHandle sent
  // instead of the credential's, or null.
  bool corrupt_signature = false;
  std::optional<std::string> user_handle{};
  bool omit_user_handle = false;
};

struct SoftCredential {
  std::string id;  // bytes
  int algorithm = -7;
  std::string rp_id;
  std::string user_handle;    // the creation options' user.id, decoded
  std::uint32_t counter = 0;  // grown by each get() (a Tamper::counter is not kept)
  std::shared_ptr<evp_pkey_st> key;
};

class SoftAuthenticator {
 public:
  // `algorithm`: -7 (ES256) or -8 (EdDSA). `counts`: false for an
  // authenticator without a signature counter (it always writes 0).
  explicit SoftAuthenticator(int algorithm = -7, bool counts = true);

  // navigator.credentials.create() from the creation options' JSON
  // ({"publicKey": {...}} or the inner object) on a page of `origin`: a new
  // credential (counter 0), attestation "none". Throws std::invalid_argument
  // where a browser would refuse: options without challenge or user.id, no
  // pubKeyCredParams entry of this algorithm, or excludeCredentials naming
  // a credential this authenticator holds (InvalidStateError).
  nlohmann::json create(const nlohmann::json& options, const std::string& origin,
                        const Tamper& tamper = {});

  // navigator.credentials.get() from the request options' JSON: signs with
  // the first credential of allowCredentials this authenticator holds, or,
  // when that list is empty or absent, with the one made last. Its counter
  // grows by 1 first (when counting). Throws std::invalid_argument when it
  // holds none of them.
  nlohmann::json get(const nlohmann::json& options, const std::string& origin,
                     const Tamper& tamper = {});

  const std::vector<SoftCredential>& credentials() const { return credentials_; }
  const SoftCredential& last_credential() const;  // throws std::logic_error when none
  std::string last_credential_id() const;         // base64url
  int algorithm() const { return algorithm_; }

 private:
  int algorithm_;
  bool counts_;
  std::vector<SoftCredential> credentials_;
};

// base64url without padding, and back (std::invalid_argument when not).
std::string to_base64url(const std::string& bytes);
std::string from_base64url(const std::string& text);

}  // namespace authd::test_support
