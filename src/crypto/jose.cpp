#include "crypto/jose.hpp"

#include <array>
#include <cstdint>
#include <cstring>
#include <stdexcept>

#include <cjose/cjose.h>
#include <sodium.h>
#include <nlohmann/json.hpp>

#include "crypto/random.hpp"

namespace authd::jose {
namespace {

struct JwkRelease {
  void operator()(cjose_jwk_t* jwk) const { cjose_jwk_release(jwk); }
};
using JwkPtr = std::unique_ptr<cjose_jwk_t, JwkRelease>;

struct JwsRelease {
  void operator()(cjose_jws_t* jws) const { cjose_jws_release(jws); }
};
using JwsPtr = std::unique_ptr<cjose_jws_t, JwsRelease>;

struct HeaderRelease {
  void operator()(cjose_header_t* header) const { cjose_header_release(header); }
};
using HeaderPtr = std::unique_ptr<cjose_header_t, HeaderRelease>;

// libcjose's JSON text of a key, copied out; its buffer is wiped (it may
// hold the private members) and freed with libcjose's deallocator.
std::string take_json(char* text) {
  if (text == nullptr) throw std::runtime_error("libcjose could not write the key as JSON");
  const std::size_t length = std::strlen(text);
  std::string out(text, length);
  sodium_memzero(text, length);
  cjose_get_dealloc()(text);
  return out;
}

cjose_jwk_kty_t kty_of(Alg alg) { return alg == Alg::rs256 ? CJOSE_JWK_KTY_RSA : CJOSE_JWK_KTY_EC; }

// Signs `payload` under the protected header {alg, kid, typ}.
std::string sign_with(const cjose_jwk_t* jwk, Alg alg, const std::string& kid,
                      std::string_view payload, std::string_view typ) {
  cjose_err err{};
  HeaderPtr header(cjose_header_new(&err));
  const std::string typ_text(typ);
  if (!header || !cjose_header_set(header.get(), CJOSE_HDR_ALG, alg_name(alg).data(), &err) ||
      !cjose_header_set(header.get(), CJOSE_HDR_KID, kid.c_str(), &err) ||
      !cjose_header_set(header.get(), "typ", typ_text.c_str(), &err))
    throw std::runtime_error("libcjose could not make a JWS header");
  JwsPtr jws(cjose_jws_sign(jwk, header.get(),
                            reinterpret_cast<const std::uint8_t*>(payload.data()), payload.size(),
                            &err));
  const char* compact = nullptr;
  if (!jws || !cjose_jws_export(jws.get(), &compact, &err) || compact == nullptr)
    throw std::runtime_error(std::string("libcjose could not sign: ") +
                             (err.message != nullptr ? err.message : "unknown error"));
  return compact;
}

}  // namespace

struct SigningKey::Handle {
  JwkPtr jwk;
};

std::string_view alg_name(Alg alg) { return alg == Alg::rs256 ? "RS256" : "ES256"; }

std::optional<Alg> alg_from_name(std::string_view name) {
  if (name == "RS256") return Alg::rs256;
  if (name == "ES256") return Alg::es256;
  return std::nullopt;
}

std::string new_kid() {
  std::array<std::uint8_t, 16> bytes{};
  randombytes_buf(bytes.data(), bytes.size());
  return base64url(bytes.data(), bytes.size());
}

SigningKey::SigningKey(std::unique_ptr<Handle> handle, Alg alg, std::string kid)
    : handle_(std::move(handle)), alg_(alg), kid_(std::move(kid)) {}
SigningKey::SigningKey(SigningKey&&) noexcept = default;
SigningKey& SigningKey::operator=(SigningKey&&) noexcept = default;
SigningKey::~SigningKey() = default;

SigningKey SigningKey::generate(Alg alg, std::string_view kid) {
  cjose_err err{};
  JwkPtr jwk;
  if (alg == Alg::rs256) {
    static constexpr std::array<std::uint8_t, 3> kExponent{0x01, 0x00, 0x01};  // 65537
    jwk.reset(cjose_jwk_create_RSA_random(2048, kExponent.data(), kExponent.size(), &err));
  } else {
    jwk.reset(cjose_jwk_create_EC_random(CJOSE_JWK_EC_P_256, &err));
  }
  if (!jwk || !cjose_jwk_set_kid(jwk.get(), kid.data(), kid.size(), &err))
    throw std::runtime_error("libcjose could not make a signing key");
  return {std::make_unique<Handle>(Handle{std::move(jwk)}), alg, std::string(kid)};
}

std::optional<SigningKey> SigningKey::import_private(std::string_view private_jwk, Alg alg,
                                                     std::string_view kid) {
  cjose_err err{};
  JwkPtr jwk(cjose_jwk_import(private_jwk.data(), private_jwk.size(), &err));
  if (!jwk || cjose_jwk_get_kty(jwk.get(), &err) != kty_of(alg)) return std::nullopt;
  const char* stored_kid = cjose_jwk_get_kid(jwk.get(), &err);
  if (stored_kid == nullptr || kid != stored_kid) return std::nullopt;
  if (alg == Alg::es256 && cjose_jwk_get_keysize(jwk.get(), &err) != 256) return std::nullopt;
  SigningKey key(std::make_unique<Handle>(Handle{std::move(jwk)}), alg, std::string(kid));
  // A public JWK imports too: only a signature proves the private part.
  try {
    (void)key.sign("", "JWT");
  } catch (const std::runtime_error&) {
    return std::nullopt;
  }
  return key;
}

std::string SigningKey::public_jwk() const {
  cjose_err err{};
  nlohmann::json jwk =
      nlohmann::json::parse(take_json(cjose_jwk_to_json(handle_->jwk.get(), false, &err)));
  jwk["kid"] = kid_;
  jwk["use"] = "sig";
  jwk["alg"] = alg_name(alg_);
  return jwk.dump();
}

std::string SigningKey::private_jwk() const {
  cjose_err err{};
  return take_json(cjose_jwk_to_json(handle_->jwk.get(), true, &err));
}

std::string SigningKey::sign(std::string_view payload, std::string_view typ) const {
  return sign_with(handle_->jwk.get(), alg_, kid_, payload, typ);
}

std::optional<std::string> verify(std::string_view compact, std::string_view public_jwk) {
  cjose_err err{};
  JwkPtr jwk(cjose_jwk_import(public_jwk.data(), public_jwk.size(), &err));
  JwsPtr jws(cjose_jws_import(compact.data(), compact.size(), &err));
  if (!jwk || !jws) return std::nullopt;
  const char* alg = cjose_header_get(cjose_jws_get_protected(jws.get()), CJOSE_HDR_ALG, &err);
  const std::optional<Alg> named = alg != nullptr ? alg_from_name(alg) : std::nullopt;
  if (!named || cjose_jwk_get_kty(jwk.get(), &err) != kty_of(*named)) return std::nullopt;
  if (!cjose_jws_verify(jws.get(), jwk.get(), &err)) return std::nullopt;
  std::uint8_t* plaintext = nullptr;
  std::size_t length = 0;
  if (!cjose_jws_get_plaintext(jws.get(), &plaintext, &length, &err)) return std::nullopt;
  return std::string(reinterpret_cast<const char*>(plaintext), length);
}

std::optional<JwsHeader> unverified_header(std::string_view compact) {
  cjose_err err{};
  JwsPtr jws(cjose_jws_import(compact.data(), compact.size(), &err));
  if (!jws) return std::nullopt;
  cjose_header_t* header = cjose_jws_get_protected(jws.get());
  auto member = [&](const char* name) {
    const char* value = cjose_header_get(header, name, &err);
    return value != nullptr ? std::string(value) : std::string();
  };
  return JwsHeader{member(CJOSE_HDR_ALG), member(CJOSE_HDR_KID), member("typ")};
}

}  // namespace authd::jose
