#include "support/soft_authenticator.hpp"

#include <algorithm>
#include <cstdlib>
#include <stdexcept>

#include <cbor.h>
#include <openssl/core_names.h>
#include <openssl/evp.h>
#include <openssl/rand.h>
#include <openssl/x509.h>
#include <sodium.h>

namespace authd::test_support {
namespace {

using nlohmann::json;

struct CborFree {
  void operator()(cbor_item_t* item) const { cbor_decref(&item); }
};
using Cbor = std::unique_ptr<cbor_item_t, CborFree>;

void check(bool ok, const char* what) {
  if (!ok) throw std::runtime_error(std::string("soft authenticator: ") + what);
}

std::string bytes_of(const unsigned char* data, std::size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

const unsigned char* data_of(const std::string& bytes) {
  return reinterpret_cast<const unsigned char*>(bytes.data());
}

std::string sha256(const std::string& data) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int size = 0;
  check(EVP_Digest(data.data(), data.size(), digest, &size, EVP_sha256(), nullptr) == 1, "SHA-256");
  return bytes_of(digest, size);
}

std::string random_bytes(std::size_t size) {
  std::string bytes(size, '\0');
  check(RAND_bytes(reinterpret_cast<unsigned char*>(bytes.data()), static_cast<int>(size)) == 1,
        "RAND_bytes");
  return bytes;
}

std::string big_endian32(std::uint32_t value) {
  return {static_cast<char>(value >> 24), static_cast<char>(value >> 16),
          static_cast<char>(value >> 8), static_cast<char>(value)};
}

// CBOR integers of any sign, in their shortest form as CTAP2 writes them.
cbor_item_t* cbor_int(std::int64_t value) {
  const std::uint64_t magnitude =
      value < 0 ? static_cast<std::uint64_t>(-1 - value) : static_cast<std::uint64_t>(value);
  cbor_item_t* item = nullptr;
  if (magnitude <= 0xFF)
    item = value < 0 ? cbor_build_negint8(static_cast<std::uint8_t>(magnitude))
                     : cbor_build_uint8(static_cast<std::uint8_t>(magnitude));
  else if (magnitude <= 0xFFFF)
    item = value < 0 ? cbor_build_negint16(static_cast<std::uint16_t>(magnitude))
                     : cbor_build_uint16(static_cast<std::uint16_t>(magnitude));
  else
    item = value < 0 ? cbor_build_negint32(static_cast<std::uint32_t>(magnitude))
                     : cbor_build_uint32(static_cast<std::uint32_t>(magnitude));
  check(item != nullptr, "cbor int");
  return item;
}

cbor_item_t* cbor_bytes(const std::string& bytes) {
  cbor_item_t* item = cbor_build_bytestring(data_of(bytes), bytes.size());
  check(item != nullptr, "cbor bytes");
  return item;
}

cbor_item_t* cbor_text(const std::string& text) {
  cbor_item_t* item = cbor_build_stringn(text.data(), text.size());
  check(item != nullptr, "cbor text");
  return item;
}

// Adds key and value to `map`, which takes them.
void put(cbor_item_t* map, cbor_item_t* key, cbor_item_t* value) {
  check(cbor_map_add(map, cbor_pair{cbor_move(key), cbor_move(value)}), "cbor_map_add");
}

Cbor new_map(std::size_t size) {
  Cbor map(cbor_new_definite_map(size));
  check(map != nullptr, "cbor map");
  return map;
}

std::string serialize(const cbor_item_t* item) {
  unsigned char* buffer = nullptr;
  std::size_t allocated = 0;
  const std::size_t length = cbor_serialize_alloc(item, &buffer, &allocated);
  check(length > 0, "cbor_serialize_alloc");
  std::string bytes = bytes_of(buffer, length);
  free(buffer);  // NOLINT(cppcoreguidelines-no-malloc): libcbor allocates with malloc
  return bytes;
}

std::shared_ptr<EVP_PKEY> new_key(int algorithm) {
  EVP_PKEY* key = algorithm == -7 ? EVP_PKEY_Q_keygen(nullptr, nullptr, "EC", "P-256")
                                  : EVP_PKEY_Q_keygen(nullptr, nullptr, "ED25519");
  check(key != nullptr, "key generation");
  return {key, EVP_PKEY_free};
}

// RFC 9053's COSE_Key of the credential's public key (kty, alg, crv, x, y).
std::string cose_key(const SoftCredential& credential, const Tamper& tamper) {
  const bool ec = credential.algorithm == -7;
  Cbor map = new_map(ec ? 5 : 4);
  put(map.get(), cbor_int(1), cbor_int(ec ? 2 : 1));  // kty: EC2 or OKP
  put(map.get(), cbor_int(3), cbor_int(tamper.cose_alg.value_or(credential.algorithm)));
  put(map.get(), cbor_int(-1), cbor_int(ec ? 1 : 6));  // crv: P-256 or Ed25519
  unsigned char point[65];
  std::size_t size = 0;
  if (ec) {
    // The uncompressed point: 0x04, x, y.
    check(EVP_PKEY_get_octet_string_param(credential.key.get(), OSSL_PKEY_PARAM_PUB_KEY, point,
                                          sizeof(point), &size) == 1 &&
              size == 65 && point[0] == 0x04,
          "EC public key");
    if (tamper.bad_public_key) point[64] ^= 0x01;  // y no longer on the curve for x
    put(map.get(), cbor_int(-2), cbor_bytes(bytes_of(point + 1, 32)));
    put(map.get(), cbor_int(-3), cbor_bytes(bytes_of(point + 33, 32)));
  } else {
    size = sizeof(point);
    check(EVP_PKEY_get_raw_public_key(credential.key.get(), point, &size) == 1 && size == 32,
          "Ed25519 public key");
    put(map.get(), cbor_int(-2), cbor_bytes(bytes_of(point, tamper.bad_public_key ? 31 : 32)));
  }
  return serialize(map.get());
}

std::string spki(const SoftCredential& credential) {
  unsigned char* der = nullptr;
  const int size = i2d_PUBKEY(credential.key.get(), &der);
  check(size > 0, "i2d_PUBKEY");
  std::string bytes = bytes_of(der, static_cast<std::size_t>(size));
  OPENSSL_free(der);
  return bytes;
}

std::string sign(const SoftCredential& credential, const std::string& message) {
  std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)> context(EVP_MD_CTX_new(),
                                                                  EVP_MD_CTX_free);
  // ECDSA over SHA-256 (a DER signature); Ed25519 over the message itself.
  const EVP_MD* digest = credential.algorithm == -7 ? EVP_sha256() : nullptr;
  std::size_t size = 0;
  check(
      context != nullptr &&
          EVP_DigestSignInit(context.get(), nullptr, digest, nullptr, credential.key.get()) == 1 &&
          EVP_DigestSign(context.get(), nullptr, &size, data_of(message), message.size()) == 1,
      "signature");
  std::string signature(size, '\0');
  check(EVP_DigestSign(context.get(), reinterpret_cast<unsigned char*>(signature.data()), &size,
                       data_of(message), message.size()) == 1,
        "signature");
  signature.resize(size);
  return signature;
}

// {"publicKey": {...}} or the inner object.
const json& public_key_options(const json& options) {
  const json& inner = options.contains("publicKey") ? options["publicKey"] : options;
  if (!inner.is_object() || !inner.contains("challenge") || !inner["challenge"].is_string())
    throw std::invalid_argument("options without a challenge");
  return inner;
}

// The RP ID a browser uses: the options' or, without one, the origin's host.
std::string rp_id_of(const json* named, const std::string& origin) {
  if (named != nullptr && named->is_string()) return named->get<std::string>();
  std::string host =
      origin.substr(origin.find("://") == std::string::npos ? 0 : origin.find("://") + 3);
  return host.substr(0, host.find(':'));
}

// As a browser writes clientDataJSON: these members, in this order.
std::string client_data_json(const char* type, const json& options, const std::string& origin,
                             const Tamper& tamper) {
  if (tamper.client_data_json) return *tamper.client_data_json;
  nlohmann::ordered_json client_data;
  client_data["type"] = tamper.type.value_or(type);
  client_data["challenge"] = tamper.challenge_b64url.value_or(
      to_base64url(from_base64url(options["challenge"].get<std::string>())));
  client_data["origin"] = tamper.origin.value_or(origin);
  client_data["crossOrigin"] = tamper.cross_origin;
  return client_data.dump();
}

constexpr std::uint8_t kUp = 0x01, kUv = 0x04, kAt = 0x40, kEd = 0x80;

// rpIdHash, flags, counter and `rest`; as the tamper says.
std::string authenticator_data(const std::string& rp_id, std::uint8_t flags, std::uint32_t counter,
                               const std::string& rest, const Tamper& tamper) {
  if (tamper.extensions) flags |= kEd;
  std::string data = sha256(tamper.rp_id.value_or(rp_id));
  data += static_cast<char>(tamper.flags.value_or(flags));
  data += big_endian32(tamper.counter.value_or(counter));
  data += rest + tamper.extensions.value_or("");
  if (tamper.authenticator_data_size)
    data.resize(std::min(data.size(), *tamper.authenticator_data_size));
  return data;
}

std::vector<std::string> listed_ids(const json& options, const char* member) {
  std::vector<std::string> ids;
  if (options.contains(member) && options[member].is_array())
    for (const json& entry : options[member])
      if (entry.is_object() && entry.contains("id") && entry["id"].is_string())
        ids.push_back(from_base64url(entry["id"].get<std::string>()));
  return ids;
}

}  // namespace

std::string to_base64url(const std::string& bytes) {
  constexpr int variant = sodium_base64_VARIANT_URLSAFE_NO_PADDING;
  std::string text(sodium_base64_ENCODED_LEN(bytes.size(), variant), '\0');
  sodium_bin2base64(text.data(), text.size(), data_of(bytes), bytes.size(), variant);
  text.resize(text.size() - 1);  // the NUL libsodium writes
  return text;
}

std::string from_base64url(const std::string& text) {
  std::string bytes(text.size(), '\0');
  std::size_t size = 0;
  if (sodium_base642bin(reinterpret_cast<unsigned char*>(bytes.data()), bytes.size(), text.data(),
                        text.size(), nullptr, &size, nullptr,
                        sodium_base64_VARIANT_URLSAFE_NO_PADDING) != 0)
    throw std::invalid_argument("not base64url: " + text);
  bytes.resize(size);
  return bytes;
}

SoftAuthenticator::SoftAuthenticator(int algorithm, bool counts)
    : algorithm_(algorithm), counts_(counts) {
  if (algorithm != -7 && algorithm != -8)
    throw std::invalid_argument("soft authenticator: ES256 (-7) or EdDSA (-8)");
}

json SoftAuthenticator::create(const json& all_options, const std::string& origin,
                               const Tamper& tamper) {
  const json& options = public_key_options(all_options);
  if (!options.contains("user") || !options["user"].contains("id") ||
      !options["user"]["id"].is_string())
    throw std::invalid_argument("creation options without user.id");
  if (options.contains("pubKeyCredParams") && !options["pubKeyCredParams"].empty()) {
    bool offered = false;
    for (const json& parameter : options["pubKeyCredParams"])
      offered = offered || (parameter.contains("alg") && parameter["alg"] == algorithm_);
    if (!offered) throw std::invalid_argument("pubKeyCredParams without this algorithm");
  }
  for (const std::string& excluded : listed_ids(options, "excludeCredentials"))
    for (const SoftCredential& held : credentials_)
      if (held.id == excluded) throw std::invalid_argument("InvalidStateError: already registered");

  SoftCredential credential;
  credential.id = tamper.new_credential_id.value_or(random_bytes(16));
  credential.algorithm = algorithm_;
  const json& rp = options.contains("rp") ? options["rp"] : json::object();
  credential.rp_id = rp_id_of(rp.contains("id") ? &rp["id"] : nullptr, origin);
  credential.user_handle = from_base64url(options["user"]["id"].get<std::string>());
  credential.key = new_key(algorithm_);

  // Attested credential data: an AAGUID of zeros (attestation "none"), the
  // id's length, the id, the key.
  std::string attested(16, '\0');
  attested += static_cast<char>(credential.id.size() >> 8);
  attested += static_cast<char>(credential.id.size() & 0xFF);
  attested += credential.id + cose_key(credential, tamper);
  const std::string auth_data =
      authenticator_data(credential.rp_id, kUp | kUv | kAt, 0, attested, tamper);

  Cbor statement = new_map(tamper.attestation_statement ? 2 : 0);
  if (tamper.attestation_statement) {
    put(statement.get(), cbor_text("alg"), cbor_int(algorithm_));
    put(statement.get(), cbor_text("sig"), cbor_bytes(sign(credential, auth_data)));
  }
  Cbor object = new_map(3);
  put(object.get(), cbor_text("fmt"), cbor_text(tamper.fmt.value_or("none")));
  put(object.get(), cbor_text("attStmt"), statement.release());
  put(object.get(), cbor_text("authData"), cbor_bytes(auth_data));

  const std::string sent_id = to_base64url(tamper.credential_id.value_or(credential.id));
  json response = {{"clientDataJSON",
                    to_base64url(client_data_json("webauthn.create", options, origin, tamper))},
                   {"attestationObject",
                    to_base64url(tamper.attestation_object.value_or(serialize(object.get())))},
                   {"authenticatorData", to_base64url(auth_data)},
                   {"publicKey", to_base64url(spki(credential))},
                   {"publicKeyAlgorithm", algorithm_},
                   {"transports", json::array({"internal"})}};
  credentials_.push_back(std::move(credential));
  return {{"id", sent_id},
          {"rawId", sent_id},
          {"type", "public-key"},
          {"authenticatorAttachment", "platform"},
          {"clientExtensionResults", json::object()},
          {"response", std::move(response)}};
}

json SoftAuthenticator::get(const json& all_options, const std::string& origin,
                            const Tamper& tamper) {
  const json& options = public_key_options(all_options);
  SoftCredential* credential = nullptr;
  const std::vector<std::string> allowed = listed_ids(options, "allowCredentials");
  for (const std::string& id : allowed)
    for (SoftCredential& held : credentials_)
      if (credential == nullptr && held.id == id) credential = &held;
  if (allowed.empty() && !credentials_.empty()) credential = &credentials_.back();
  if (credential == nullptr) throw std::invalid_argument("no credential for these options");

  if (counts_) ++credential->counter;
  const std::string rp_id = rp_id_of(options.contains("rpId") ? &options["rpId"] : nullptr, origin);
  const std::string auth_data =
      authenticator_data(rp_id, kUp | kUv, credential->counter, "", tamper);
  const std::string client_data = client_data_json("webauthn.get", options, origin, tamper);
  std::string signature = sign(*credential, auth_data + sha256(client_data));
  if (tamper.corrupt_signature) signature.back() = static_cast<char>(signature.back() ^ 0x01);

  const std::string sent_id = to_base64url(tamper.credential_id.value_or(credential->id));
  json user_handle = nullptr;
  if (!tamper.omit_user_handle)
    user_handle = to_base64url(tamper.user_handle.value_or(credential->user_handle));
  return {{"id", sent_id},
          {"rawId", sent_id},
          {"type", "public-key"},
          {"authenticatorAttachment", "platform"},
          {"clientExtensionResults", json::object()},
          {"response",
           {{"clientDataJSON", to_base64url(client_data)},
            {"authenticatorData", to_base64url(auth_data)},
            {"signature", to_base64url(signature)},
            {"userHandle", user_handle}}}};
}

const SoftCredential& SoftAuthenticator::last_credential() const {
  if (credentials_.empty()) throw std::logic_error("soft authenticator: no credential yet");
  return credentials_.back();
}

std::string SoftAuthenticator::last_credential_id() const {
  return to_base64url(last_credential().id);
}

}  // namespace authd::test_support
