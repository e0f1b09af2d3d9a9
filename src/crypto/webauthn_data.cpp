#include "crypto/webauthn_data.hpp"

#include <limits>
#include <memory>

#include <cbor.h>

namespace authd::webauthn {
namespace {

struct CborFree {
  void operator()(cbor_item_t* item) const { cbor_decref(&item); }
};
using CborItem = std::unique_ptr<cbor_item_t, CborFree>;

// The first CBOR item of `bytes`; `read` is how many bytes it took.
CborItem load_cbor(std::string_view bytes, std::size_t& read) {
  cbor_load_result result{};
  CborItem item(cbor_load(reinterpret_cast<cbor_data>(bytes.data()), bytes.size(), &result));
  if (!item || result.error.code != CBOR_ERR_NONE) return nullptr;
  read = result.read;
  return item;
}

bool is_text(const cbor_item_t* item, std::string_view text) {
  return cbor_isa_string(item) && cbor_string_is_definite(item) &&
         std::string_view(reinterpret_cast<const char*>(cbor_string_handle(item)),
                          cbor_string_length(item)) == text;
}

std::string_view bytes_of(const cbor_item_t* item) {
  return {reinterpret_cast<const char*>(cbor_bytestring_handle(item)),
          cbor_bytestring_length(item)};
}

}  // namespace

bool cbor_is_tame(std::string_view bytes) {
  // Well-formed CBOR declares no more members than it has bytes left, and
  // what WebAuthn sends nests a handful of containers.
  constexpr std::size_t kMostContainers = 64;
  struct Counts {
    std::size_t members = 0;  // saturating
    std::size_t containers = 0;
    void declare(std::size_t count, std::size_t per_member) {
      ++containers;
      const std::size_t room = std::numeric_limits<std::size_t>::max() - members;
      members += count > room / per_member ? room : count * per_member;
    }
  } counts;
  cbor_callbacks callbacks = cbor_empty_callbacks;
  callbacks.array_start = [](void* c, std::size_t n) { static_cast<Counts*>(c)->declare(n, 1); };
  callbacks.map_start = [](void* c, std::size_t n) { static_cast<Counts*>(c)->declare(n, 2); };
  callbacks.indef_array_start = [](void* c) { static_cast<Counts*>(c)->declare(0, 1); };
  callbacks.indef_map_start = [](void* c) { static_cast<Counts*>(c)->declare(0, 1); };
  callbacks.tag = [](void* c, std::uint64_t) { static_cast<Counts*>(c)->declare(0, 1); };
  for (std::size_t at = 0; at < bytes.size();) {
    const cbor_decoder_result result = cbor_stream_decode(
        reinterpret_cast<cbor_data>(bytes.data()) + at, bytes.size() - at, &callbacks, &counts);
    if (result.status != CBOR_DECODER_FINISHED || result.read == 0) return false;
    at += result.read;
    if (counts.members > bytes.size() || counts.containers > kMostContainers) return false;
  }
  return true;
}

std::optional<AuthenticatorData> parse_authenticator_data(std::string_view bytes) {
  if (bytes.size() < kAuthenticatorDataMinimum) return std::nullopt;
  AuthenticatorData data;
  data.rp_id_hash = bytes.substr(0, 32);
  data.flags = static_cast<std::uint8_t>(bytes[32]);
  for (std::size_t i = 33; i < 37; ++i)
    data.sign_count = (data.sign_count << 8) | static_cast<std::uint8_t>(bytes[i]);
  return data;
}

std::optional<AttestedCredential> attested_credential(std::string_view authenticator_data) {
  // aaguid (16 bytes), then the id's length (2 bytes, big-endian), the id.
  constexpr std::size_t kIdAt = kAuthenticatorDataMinimum + 16 + 2;
  if (authenticator_data.size() < kIdAt) return std::nullopt;
  const std::size_t id_length =
      static_cast<std::size_t>(static_cast<std::uint8_t>(authenticator_data[kIdAt - 2])) << 8 |
      static_cast<std::uint8_t>(authenticator_data[kIdAt - 1]);
  if (authenticator_data.size() <= kIdAt + id_length ||  // no key after it
      !cbor_is_tame(authenticator_data.substr(kIdAt + id_length)))
    return std::nullopt;
  return AttestedCredential{authenticator_data.substr(kIdAt, id_length),
                            authenticator_data.substr(kIdAt + id_length)};
}

std::optional<int> cose_algorithm(std::string_view cose_key) {
  std::size_t read = 0;
  CborItem key = cbor_is_tame(cose_key) ? load_cbor(cose_key, read) : nullptr;
  if (!key || !cbor_isa_map(key.get()) || !cbor_map_is_definite(key.get())) return std::nullopt;
  std::optional<int> algorithm;
  const cbor_pair* pairs = cbor_map_handle(key.get());
  for (std::size_t i = 0; i < cbor_map_size(key.get()); ++i) {
    if (!cbor_isa_uint(pairs[i].key) || cbor_get_int(pairs[i].key) != 3) continue;
    const cbor_item_t* value = pairs[i].value;
    // COSE algorithms are small integers; one out of int's range is none of ours.
    if (algorithm || (!cbor_isa_uint(value) && !cbor_isa_negint(value)) ||
        cbor_get_int(value) > static_cast<std::uint64_t>(std::numeric_limits<int>::max()))
      return std::nullopt;
    const int magnitude = static_cast<int>(cbor_get_int(value));
    algorithm = cbor_isa_negint(value) ? -1 - magnitude : magnitude;
  }
  return algorithm;
}

std::optional<AttestationObject> parse_attestation_object(std::string_view cbor) {
  std::size_t read = 0;
  CborItem map = cbor_is_tame(cbor) ? load_cbor(cbor, read) : nullptr;
  if (!map || read != cbor.size() || !cbor_isa_map(map.get()) || !cbor_map_is_definite(map.get()))
    return std::nullopt;
  const cbor_item_t* fmt = nullptr;
  const cbor_item_t* statement = nullptr;
  const cbor_item_t* authenticator_data = nullptr;
  const cbor_pair* pairs = cbor_map_handle(map.get());
  for (std::size_t i = 0; i < cbor_map_size(map.get()); ++i) {
    const cbor_item_t** slot = is_text(pairs[i].key, "fmt")        ? &fmt
                               : is_text(pairs[i].key, "attStmt")  ? &statement
                               : is_text(pairs[i].key, "authData") ? &authenticator_data
                                                                   : nullptr;
    if (slot == nullptr) continue;  // a member WebAuthn may add later
    if (*slot != nullptr) return std::nullopt;
    *slot = pairs[i].value;
  }
  if (fmt == nullptr || !cbor_isa_string(fmt) || !cbor_string_is_definite(fmt) ||
      statement == nullptr || !cbor_isa_map(statement) || !cbor_map_is_definite(statement) ||
      authenticator_data == nullptr || !cbor_isa_bytestring(authenticator_data) ||
      !cbor_bytestring_is_definite(authenticator_data))
    return std::nullopt;
  AttestationObject object;
  object.fmt.assign(reinterpret_cast<const char*>(cbor_string_handle(fmt)),
                    cbor_string_length(fmt));
  object.empty_statement = cbor_map_size(statement) == 0;
  object.authenticator_data = std::string(bytes_of(authenticator_data));
  return object;
}

}  // namespace authd::webauthn
