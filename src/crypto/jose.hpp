// The OpenID provider's signing keys and signatures (interface.md 17.12):
// a thin wrapper of libcjose, the JOSE library mod_auth_openidc builds on.
// libcjose makes the keys (with OpenSSL) and signs; nothing here is
// home-made cryptography (docs/design/decisions/oidc-signing-keys.md).
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>

namespace authd::jose {

enum class Alg { rs256, es256 };

// "RS256", "ES256".
std::string_view alg_name(Alg alg);
std::optional<Alg> alg_from_name(std::string_view name);

// A key id: 16 random bytes in base64url (interface.md 17.12).
std::string new_kid();

// A private signing key: RSA 2048 for RS256, P-256 for ES256.
class SigningKey {
 public:
  // A new key from OpenSSL's CSPRNG, by libcjose. Throws std::runtime_error
  // when libcjose fails (never with key material in the message).
  static SigningKey generate(Alg alg, std::string_view kid);
  // The private JWK that private_jwk() wrote: nothing when it is not JSON,
  // not a private key of `alg`'s type, or names another kid.
  static std::optional<SigningKey> import_private(std::string_view private_jwk, Alg alg,
                                                  std::string_view kid);

  SigningKey(SigningKey&&) noexcept;
  SigningKey& operator=(SigningKey&&) noexcept;
  ~SigningKey();

  Alg alg() const { return alg_; }
  const std::string& kid() const { return kid_; }

  // The public JWK as JSON text: kty, kid, use "sig", alg, and n/e or
  // crv/x/y; never a private member.
  std::string public_jwk() const;
  // The private JWK as JSON text, to be sealed at once; the caller wipes it
  // (core/wipe.hpp).
  std::string private_jwk() const;

  // A compact JWS of `payload` with the protected header {alg, kid, typ}.
  std::string sign(std::string_view payload, std::string_view typ) const;

 private:
  struct Handle;
  SigningKey(std::unique_ptr<Handle> handle, Alg alg, std::string kid);

  std::unique_ptr<Handle> handle_;
  Alg alg_;
  std::string kid_;
};

// Checks a compact JWS against a public JWK (JSON text) with libcjose; the
// payload when the signature holds and the header's alg is the key's.
std::optional<std::string> verify(std::string_view compact, std::string_view public_jwk);

// The protected header's alg, kid and typ (empty when absent), read by
// libcjose without checking the signature: only to choose the key that
// verify() then checks it with. Nothing when the text is no compact JWS.
struct JwsHeader {
  std::string alg;
  std::string kid;
  std::string typ;
};
std::optional<JwsHeader> unverified_header(std::string_view compact);

}  // namespace authd::jose
