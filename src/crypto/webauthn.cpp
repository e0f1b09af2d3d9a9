#include "crypto/webauthn.hpp"

#include <iterator>
#include <memory>
#include <mutex>

#include <fido.h>
#include <fido/eddsa.h>
#include <fido/es256.h>
#include <sodium.h>
#include <nlohmann/json.hpp>

#include "crypto/random.hpp"
#include "crypto/webauthn_data.hpp"

namespace authd::webauthn {
namespace {

using nlohmann::json;

struct FidoFree {
  void operator()(fido_cred_t* cred) const { fido_cred_free(&cred); }
  void operator()(fido_assert_t* assertion) const { fido_assert_free(&assertion); }
  void operator()(es256_pk_t* key) const { es256_pk_free(&key); }
  void operator()(eddsa_pk_t* key) const { eddsa_pk_free(&key); }
};
template <typename T>
using Fido = std::unique_ptr<T, FidoFree>;

// libfido2 asks for fido_init() once per process before any other call.
void ensure_fido() {
  static std::once_flag once;
  std::call_once(once, [] { fido_init(0); });
}

const unsigned char* bytes(std::string_view data) {
  return reinterpret_cast<const unsigned char*>(data.data());
}

// `object[name]` decoded from base64url; on failure `problem` names it as
// `path`.`name`.
std::optional<std::string> binary_member(const json& object, const char* path, const char* name,
                                         std::string& problem) {
  const std::string where = std::string(path) + "." + name;
  auto it = object.find(name);
  if (it == object.end()) {
    problem = where + ": required";
    return std::nullopt;
  }
  if (!it->is_string()) {
    problem = where + ": must be a string";
    return std::nullopt;
  }
  std::optional<std::string> decoded = from_base64url(it->get_ref<const std::string&>());
  if (!decoded) problem = where + ": not base64url";
  return decoded;
}

// The members every credential has; `response` is its response object.
std::optional<std::string> credential_id(const json& credential, const json*& response,
                                         std::string& problem) {
  if (!credential.is_object()) {
    problem = "credential: must be a JSON object";
    return std::nullopt;
  }
  std::optional<std::string> id = binary_member(credential, "credential", "id", problem);
  if (!id) return std::nullopt;
  std::optional<std::string> raw_id = binary_member(credential, "credential", "rawId", problem);
  if (!raw_id) return std::nullopt;
  if (*id != *raw_id) {
    problem = "credential.id: must be rawId";
    return std::nullopt;
  }
  auto type = credential.find("type");
  if (type == credential.end() || *type != "public-key") {
    problem = "credential.type: must be \"public-key\"";
    return std::nullopt;
  }
  auto found = credential.find("response");
  if (found == credential.end() || !found->is_object()) {
    problem = "credential.response: must be a JSON object";
    return std::nullopt;
  }
  response = &*found;
  return id;
}

// clientDataJSON as a JSON object, or null.
json client_data_of(std::string_view client_data_json) {
  // nlohmann's lexer ends the input at a NUL byte, which valid JSON never
  // holds raw: refused, so that nothing after one goes unread.
  if (client_data_json.find('\0') != std::string_view::npos) return nullptr;
  json parsed = json::parse(client_data_json, nullptr, /*allow_exceptions=*/false);
  return parsed.is_object() ? parsed : json(nullptr);
}

bool equal_bytes(std::string_view a, std::string_view b) {
  return a.size() == b.size() && sodium_memcmp(a.data(), b.data(), a.size()) == 0;
}

bool has_string(const json& object, const char* name) {
  auto it = object.find(name);
  return it != object.end() && it->is_string();
}

const std::string& string_at(const json& object, const char* name) {
  return object.find(name)->get_ref<const std::string&>();
}

// The client data steps of 7.1 and 7.2, the same for both ceremonies.
std::optional<Check> check_client_data(std::string_view client_data_json, const char* type,
                                       const RelyingParty& rp,
                                       const std::optional<std::string>& expected_challenge) {
  const json client_data = client_data_of(client_data_json);
  if (!client_data.is_object() || !has_string(client_data, "type") ||
      !has_string(client_data, "challenge") || !has_string(client_data, "origin"))
    return Check::client_data;
  auto cross_origin = client_data.find("crossOrigin");
  if (cross_origin != client_data.end() && !cross_origin->is_boolean()) return Check::client_data;
  if (string_at(client_data, "type") != type) return Check::type;
  std::optional<std::string> challenge = from_base64url(string_at(client_data, "challenge"));
  if (!expected_challenge || !challenge || !equal_bytes(*challenge, *expected_challenge))
    return Check::challenge;
  const std::string& origin = string_at(client_data, "origin");
  bool known_origin = false;
  for (const std::string& allowed : rp.origins) known_origin = known_origin || allowed == origin;
  if (!known_origin) return Check::origin;
  // Authenticating inside another origin's frame is what authd never does.
  if (cross_origin != client_data.end() && cross_origin->get<bool>()) return Check::cross_origin;
  return std::nullopt;
}

// Steps common to both: the head of the authenticator data and its flags.
std::optional<Check> check_authenticator_data(const std::optional<AuthenticatorData>& data,
                                              const RelyingParty& rp, bool require_uv) {
  if (!data) return Check::authenticator_data;
  const Sha256Digest rp_id_hash = sha256(rp.id);
  if (sodium_memcmp(data->rp_id_hash.data(), rp_id_hash.data(), rp_id_hash.size()) != 0)
    return Check::rp_id_hash;
  if ((data->flags & kUserPresent) == 0) return Check::user_present;
  if (require_uv && (data->flags & kUserVerified) == 0) return Check::user_verified;
  return std::nullopt;
}

// A libfido2 public key from its raw form; `pk` null when the bytes are
// not a key of `algorithm`. es256_pk_from_ptr makes the EVP key, which
// checks the point is on the curve (libfido2's COSE parsing only reads the
// coordinates).
struct FidoKey {
  Fido<es256_pk_t> es256;
  Fido<eddsa_pk_t> eddsa;
  const void* pk = nullptr;  // the one made, as fido_assert_verify takes it
};
FidoKey fido_key(int algorithm, std::string_view raw) {
  FidoKey key;
  if (algorithm == kEs256 && raw.size() == 64) {
    key.es256.reset(es256_pk_new());
    if (key.es256 && es256_pk_from_ptr(key.es256.get(), raw.data(), raw.size()) == FIDO_OK)
      key.pk = key.es256.get();
  } else if (algorithm == kEdDsa && raw.size() == 32) {
    key.eddsa.reset(eddsa_pk_new());
    if (key.eddsa && eddsa_pk_from_ptr(key.eddsa.get(), raw.data(), raw.size()) == FIDO_OK)
      key.pk = key.eddsa.get();
  }
  return key;
}

// libfido2 parses the attested credential data again, with the COSE key as
// a key of `algorithm` (kty, crv and coordinates of the right lengths).
std::optional<std::string> public_key_of(std::string_view authenticator_data, int algorithm,
                                         std::string_view credential_id) {
  ensure_fido();
  Fido<fido_cred_t> cred(fido_cred_new());
  if (!cred || fido_cred_set_type(cred.get(), algorithm) != FIDO_OK ||
      fido_cred_set_authdata_raw(cred.get(), bytes(authenticator_data),
                                 authenticator_data.size()) != FIDO_OK)
    return std::nullopt;
  const std::string_view parsed_id(reinterpret_cast<const char*>(fido_cred_id_ptr(cred.get())),
                                   fido_cred_id_len(cred.get()));
  if (parsed_id != credential_id || fido_cred_pubkey_ptr(cred.get()) == nullptr)
    return std::nullopt;
  const std::string_view raw(reinterpret_cast<const char*>(fido_cred_pubkey_ptr(cred.get())),
                             fido_cred_pubkey_len(cred.get()));
  if (fido_key(algorithm, raw).pk == nullptr) return std::nullopt;
  return std::string(raw);
}

bool signature_verifies(const AssertionResponse& response, const RelyingParty& rp,
                        const StoredCredential& credential, bool require_uv) {
  ensure_fido();
  const FidoKey key = fido_key(credential.algorithm, credential.public_key);
  if (key.pk == nullptr) return false;
  const Sha256Digest client_data_hash = sha256(response.client_data_json);
  Fido<fido_assert_t> assertion(fido_assert_new());
  // libfido2's setters take no empty member. It checks UP, UV and rpIdHash
  // again, and refuses extension outputs authd did not ask for.
  return assertion && !response.signature.empty() &&
         fido_assert_set_count(assertion.get(), 1) == FIDO_OK &&
         fido_assert_set_rp(assertion.get(), rp.id.c_str()) == FIDO_OK &&
         fido_assert_set_clientdata_hash(assertion.get(), client_data_hash.data(),
                                         client_data_hash.size()) == FIDO_OK &&
         fido_assert_set_authdata_raw(assertion.get(), 0, bytes(response.authenticator_data),
                                      response.authenticator_data.size()) == FIDO_OK &&
         fido_assert_set_sig(assertion.get(), 0, bytes(response.signature),
                             response.signature.size()) == FIDO_OK &&
         fido_assert_set_up(assertion.get(), FIDO_OPT_TRUE) == FIDO_OK &&
         fido_assert_set_uv(assertion.get(), require_uv ? FIDO_OPT_TRUE : FIDO_OPT_OMIT) ==
             FIDO_OK &&
         fido_assert_verify(assertion.get(), 0, credential.algorithm, key.pk) == FIDO_OK;
}

}  // namespace

const char* check_name(Check check) {
  // In the enum's order, as interface.md 16.7 names them.
  static constexpr const char* kNames[] = {"shape",
                                           "clientData",
                                           "type",
                                           "challenge",
                                           "origin",
                                           "crossOrigin",
                                           "attestationObject",
                                           "authenticatorData",
                                           "rpIdHash",
                                           "userPresent",
                                           "userVerified",
                                           "attestedCredentialData",
                                           "algorithm",
                                           "publicKey",
                                           "attestation",
                                           "credentialId",
                                           "userHandle",
                                           "signature",
                                           "signCount"};
  static_assert(std::size(kNames) == static_cast<std::size_t>(Check::sign_count) + 1);
  return kNames[static_cast<std::size_t>(check)];
}

std::optional<RegistrationResponse> parse_registration_response(const json& credential,
                                                                std::string& problem) {
  const json* response = nullptr;
  std::optional<std::string> id = credential_id(credential, response, problem);
  if (!id) return std::nullopt;
  const char* path = "credential.response";
  auto client_data_json = binary_member(*response, path, "clientDataJSON", problem);
  if (!client_data_json) return std::nullopt;
  auto attestation_object = binary_member(*response, path, "attestationObject", problem);
  if (!attestation_object) return std::nullopt;
  return RegistrationResponse{std::move(*id), std::move(*client_data_json),
                              std::move(*attestation_object)};
}

std::optional<AssertionResponse> parse_assertion_response(const json& credential,
                                                          std::string& problem) {
  const json* response = nullptr;
  std::optional<std::string> id = credential_id(credential, response, problem);
  if (!id) return std::nullopt;
  const char* path = "credential.response";
  AssertionResponse parsed;
  parsed.id = std::move(*id);
  for (auto [name, slot] : {std::pair{"clientDataJSON", &parsed.client_data_json},
                            std::pair{"authenticatorData", &parsed.authenticator_data},
                            std::pair{"signature", &parsed.signature}}) {
    std::optional<std::string> decoded = binary_member(*response, path, name, problem);
    if (!decoded) return std::nullopt;
    *slot = std::move(*decoded);
  }
  // Absent or null when the authenticator keeps no account for the
  // credential (a second factor's, not discoverable).
  auto user_handle = response->find("userHandle");
  if (user_handle != response->end() && !user_handle->is_null()) {
    parsed.user_handle = binary_member(*response, path, "userHandle", problem);
    if (!parsed.user_handle) return std::nullopt;
  }
  return parsed;
}

std::optional<std::string> challenge_of(std::string_view client_data_json) {
  const json client_data = client_data_of(client_data_json);
  if (!client_data.is_object()) return std::nullopt;
  auto challenge = client_data.find("challenge");
  if (challenge == client_data.end() || !challenge->is_string()) return std::nullopt;
  return from_base64url(challenge->get_ref<const std::string&>());
}

RegistrationResult verify_registration(const RegistrationResponse& response, const RelyingParty& rp,
                                       const std::optional<std::string>& expected_challenge) {
  RegistrationResult result;
  auto fail = [&](Check check) {
    result.failed = check;
    return result;
  };
  if (auto failed =
          check_client_data(response.client_data_json, "webauthn.create", rp, expected_challenge))
    return fail(*failed);
  std::optional<AttestationObject> attestation =
      parse_attestation_object(response.attestation_object);
  if (!attestation) return fail(Check::attestation_object);
  const std::string& authenticator_data = attestation->authenticator_data;
  const std::optional<AuthenticatorData> data = parse_authenticator_data(authenticator_data);
  // A passkey signs in alone: the user must have been verified at creation.
  if (auto failed = check_authenticator_data(data, rp, /*require_uv=*/true)) return fail(*failed);
  std::optional<AttestedCredential> attested;
  if ((data->flags & kAttestedCredentialData) != 0)
    attested = attested_credential(authenticator_data);
  if (!attested) return fail(Check::attested_credential_data);
  // 1023 bytes: WebAuthn Level 3's bound on a credential id.
  if (attested->credential_id.empty() || attested->credential_id.size() > 1023 ||
      attested->credential_id != response.id)
    return fail(Check::credential_id);
  const std::optional<int> algorithm = cose_algorithm(attested->cose_key);
  if (!algorithm || (*algorithm != kEs256 && *algorithm != kEdDsa)) return fail(Check::algorithm);
  std::optional<std::string> public_key =
      public_key_of(authenticator_data, *algorithm, attested->credential_id);
  if (!public_key) return fail(Check::public_key);
  // authd asks for attestation "none": it trusts no authenticator's maker.
  if (attestation->fmt != "none" || !attestation->empty_statement) return fail(Check::attestation);
  result.credential.id = std::string(attested->credential_id);
  result.credential.algorithm = *algorithm;
  result.credential.public_key = std::move(*public_key);
  result.credential.sign_count = data->sign_count;
  result.backup_eligible = (data->flags & kBackupEligible) != 0;
  result.backed_up = (data->flags & kBackedUp) != 0;
  return result;
}

AssertionResult verify_assertion(const AssertionResponse& response, const RelyingParty& rp,
                                 const std::optional<std::string>& expected_challenge,
                                 const StoredCredential& credential,
                                 bool require_user_verification) {
  AssertionResult result;
  auto fail = [&](Check check) {
    result.failed = check;
    return result;
  };
  if (response.id != credential.id) return fail(Check::credential_id);
  // A passwordless sign-in learns the account from the user handle alone.
  if (response.user_handle ? *response.user_handle != credential.user_handle
                           : require_user_verification)
    return fail(Check::user_handle);
  if (auto failed =
          check_client_data(response.client_data_json, "webauthn.get", rp, expected_challenge))
    return fail(*failed);
  std::optional<AuthenticatorData> data = parse_authenticator_data(response.authenticator_data);
  // Extensions, if any, which libfido2 loads with libcbor.
  if (data && !cbor_is_tame(
                  std::string_view(response.authenticator_data).substr(kAuthenticatorDataMinimum)))
    data.reset();
  if (auto failed = check_authenticator_data(data, rp, require_user_verification))
    return fail(*failed);
  if (!signature_verifies(response, rp, credential, require_user_verification))
    return fail(Check::signature);
  // An authenticator without a counter sends 0 every time; one with a
  // counter that did not grow may be a clone (7.2, signCount).
  if ((data->sign_count != 0 || credential.sign_count != 0) &&
      data->sign_count <= credential.sign_count)
    return fail(Check::sign_count);
  result.sign_count = data->sign_count;
  result.backed_up = (data->flags & kBackedUp) != 0;
  return result;
}

}  // namespace authd::webauthn
