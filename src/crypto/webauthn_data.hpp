// The binary structures of a WebAuthn response (W3C WebAuthn Level 2, 6.1
// and 6.5): the authenticator data, byte by byte, and the attestation
// object and the COSE key's algorithm, read with libcbor. What they mean is
// crypto/webauthn.cpp's business; these only take them apart.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace authd::webauthn {

// The flags byte (6.1).
inline constexpr std::uint8_t kUserPresent = 0x01;
inline constexpr std::uint8_t kUserVerified = 0x04;
inline constexpr std::uint8_t kBackupEligible = 0x08;
inline constexpr std::uint8_t kBackedUp = 0x10;
inline constexpr std::uint8_t kAttestedCredentialData = 0x40;

// rpIdHash (32 bytes), flags and signCount (4 bytes).
inline constexpr std::size_t kAuthenticatorDataMinimum = 37;

// The fixed head of authenticator data; views into the bytes given.
struct AuthenticatorData {
  std::string_view rp_id_hash;
  std::uint8_t flags = 0;
  std::uint32_t sign_count = 0;
};
// Nothing when shorter than the 37 bytes of the head.
std::optional<AuthenticatorData> parse_authenticator_data(std::string_view bytes);

// libcbor allocates a definite array or map for the size its header
// declares before reading a member, and frees nested items recursively: a
// few bytes could ask for gigabytes, or nest deeper than the stack. True
// when `bytes` is a sequence of well-formed CBOR items declaring no more
// members than it has bytes, with few containers: what libcbor (and
// libfido2, which calls it) may then load.
bool cbor_is_tame(std::string_view bytes);

// The attested credential data after the head (6.5.1), when the bytes hold
// it whole: aaguid, the credential id of its stated length, and at least
// one byte of COSE key, tame CBOR from there on. `cose_key` runs to the end
// (extensions may follow the key).
struct AttestedCredential {
  std::string_view credential_id;
  std::string_view cose_key;
};
std::optional<AttestedCredential> attested_credential(std::string_view authenticator_data);

// The COSE key's "alg" (label 3). Nothing when the bytes do not start with
// a definite CBOR map holding one integer alg.
std::optional<int> cose_algorithm(std::string_view cose_key);

// The attestation object (6.5.4): a definite CBOR map, tame and whole,
// with text keys "fmt" (text), "attStmt" (map) and "authData" (byte
// string), each once.
struct AttestationObject {
  std::string fmt;
  bool empty_statement = false;  // attStmt is {}
  std::string authenticator_data;
};
std::optional<AttestationObject> parse_attestation_object(std::string_view cbor);

}  // namespace authd::webauthn
