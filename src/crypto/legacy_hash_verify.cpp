#include "crypto/legacy_hash_verify.hpp"

#include <argon2.h>
#include <crypt.h>
#include <openssl/evp.h>
#include <sodium.h>

#include <climits>
#include <memory>
#include <vector>

#include "core/wipe.hpp"

namespace authd {
namespace {

// A derived key, wiped when it goes.
class DerivedKey {
 public:
  explicit DerivedKey(std::size_t size) : bytes_(size) {}
  ~DerivedKey() { sodium_memzero(bytes_.data(), bytes_.size()); }
  DerivedKey(const DerivedKey&) = delete;
  DerivedKey& operator=(const DerivedKey&) = delete;

  unsigned char* data() { return bytes_.data(); }
  std::size_t size() const { return bytes_.size(); }
  // Constant time in the contents (the sizes are public: the stored digest's).
  bool equals(const std::vector<unsigned char>& expected) const {
    return expected.size() == bytes_.size() &&
           sodium_memcmp(expected.data(), bytes_.data(), bytes_.size()) == 0;
  }
  const std::vector<unsigned char>& bytes() const { return bytes_; }

 private:
  std::vector<unsigned char> bytes_;
};

std::vector<unsigned char> random_bytes(std::size_t size) {
  std::vector<unsigned char> bytes(size);
  randombytes_buf(bytes.data(), bytes.size());
  return bytes;
}

std::string encode_base64(const std::vector<unsigned char>& bytes, int variant) {
  std::string text(sodium_base64_ENCODED_LEN(bytes.size(), variant), '\0');
  sodium_bin2base64(text.data(), text.size(), bytes.data(), bytes.size(), variant);
  text.resize(text.size() - 1);  // the terminating NUL libsodium writes
  return text;
}

// passlib's "ab64" (PBKDF2): standard base 64, '.' for '+', no padding.
std::string encode_ab64(const std::vector<unsigned char>& bytes) {
  std::string text = encode_base64(bytes, sodium_base64_VARIANT_ORIGINAL_NO_PADDING);
  for (char& c : text) {
    if (c == '+') c = '.';
  }
  return text;
}

argon2_type argon2_type_of(const std::string& algorithm) {
  if (algorithm == "argon2id") return Argon2_id;
  return algorithm == "argon2i" ? Argon2_i : Argon2_d;
}

// libargon2, on the calling thread alone whatever the lanes: a verification
// takes one hashing worker, never more threads than that.
bool derive_argon2(const Argon2Kind& kind, std::string_view password,
                   std::vector<unsigned char> salt, DerivedKey& out) {
  std::string phrase(password);
  WipeOnExit wipe_phrase(phrase);
  argon2_context context{};
  context.out = out.data();
  context.outlen = static_cast<std::uint32_t>(out.size());
  context.pwd = reinterpret_cast<std::uint8_t*>(phrase.data());
  context.pwdlen = static_cast<std::uint32_t>(phrase.size());
  context.salt = salt.data();
  context.saltlen = static_cast<std::uint32_t>(salt.size());
  context.t_cost = static_cast<std::uint32_t>(kind.iterations);
  context.m_cost = static_cast<std::uint32_t>(kind.memory_kib);
  context.lanes = static_cast<std::uint32_t>(kind.lanes);
  context.threads = 1;
  context.version = kind.version == 16 ? ARGON2_VERSION_10 : ARGON2_VERSION_13;
  context.flags = ARGON2_DEFAULT_FLAGS;
  return argon2_ctx(&context, argon2_type_of(kind.algorithm)) == ARGON2_OK;
}

const EVP_MD* pbkdf2_md(Pbkdf2Digest digest) {
  switch (digest) {
    case Pbkdf2Digest::sha1:
      return EVP_sha1();
    case Pbkdf2Digest::sha256:
      return EVP_sha256();
    case Pbkdf2Digest::sha512:
      return EVP_sha512();
  }
  return nullptr;
}

bool derive_pbkdf2(const Pbkdf2Cost& cost, std::string_view password,
                   const std::vector<unsigned char>& salt, DerivedKey& out) {
  if (password.size() > INT_MAX) return false;
  return PKCS5_PBKDF2_HMAC(password.data(), static_cast<int>(password.size()), salt.data(),
                           static_cast<int>(salt.size()), static_cast<int>(cost.iterations),
                           pbkdf2_md(cost.digest), static_cast<int>(out.size()), out.data()) == 1;
}

bool derive_scrypt(const ScryptCost& cost, std::string_view password,
                   const std::vector<unsigned char>& salt, DerivedKey& out) {
  std::uint64_t n = std::uint64_t{1} << cost.log2_n;
  // What OpenSSL allocates (128 r (N + 2) + 128 r p bytes), within the caps.
  std::uint64_t memory = 128 * cost.r * (n + 2) + 128 * cost.r * cost.p;
  return EVP_PBE_scrypt(password.data(), password.size(), salt.data(), salt.size(), n, cost.r,
                        cost.p, memory + 65536, out.data(), out.size()) == 1;
}

// libxcrypt's crypt_rn of `password` with `setting`; nothing when it fails
// (a null result, or its "*0" / "*1" failure tokens).
std::optional<std::string> run_crypt(std::string_view password, const std::string& setting) {
  if (password.find('\0') != std::string_view::npos) return std::nullopt;
  std::string phrase(password);
  WipeOnExit wipe_phrase(phrase);
  auto data = std::make_unique<crypt_data>();  // zeroed, as crypt_rn asks
  const char* result = crypt_rn(phrase.c_str(), setting.c_str(), data.get(), sizeof(crypt_data));
  std::optional<std::string> hash;
  if (result != nullptr && result[0] == '$') hash = result;
  sodium_memzero(data.get(), sizeof(crypt_data));  // its working state held the password
  return hash;
}

bool crypt_matches(std::string_view password, std::string_view stored) {
  std::optional<std::string> computed = run_crypt(password, std::string(stored));
  return computed && computed->size() == stored.size() &&
         sodium_memcmp(computed->data(), stored.data(), stored.size()) == 0;
}

// A setting from libxcrypt's crypt_gensalt_rn (random salt from the OS).
std::optional<std::string> crypt_setting(const std::string& prefix, unsigned long count) {
  char setting[CRYPT_GENSALT_OUTPUT_SIZE];
  if (crypt_gensalt_rn(prefix.c_str(), count, nullptr, 0, setting, sizeof setting) == nullptr)
    return std::nullopt;
  return std::string(setting);
}

struct Matches {
  const ParsedHash& parsed;
  std::string_view stored;
  std::string_view password;

  bool operator()(const Argon2Kind& kind) const {
    DerivedKey key(parsed.digest.size());
    return derive_argon2(kind, password, parsed.salt, key) && key.equals(parsed.digest);
  }
  bool operator()(const BcryptCost&) const { return crypt_matches(password, stored); }
  bool operator()(const ShaCryptCost&) const { return crypt_matches(password, stored); }
  bool operator()(const ScryptCost& cost) const {
    if (cost.crypt_form) return crypt_matches(password, stored);
    DerivedKey key(parsed.digest.size());
    return derive_scrypt(cost, password, parsed.salt, key) && key.equals(parsed.digest);
  }
  bool operator()(const Pbkdf2Cost& cost) const {
    DerivedKey key(parsed.digest.size());
    return derive_pbkdf2(cost, password, parsed.salt, key) && key.equals(parsed.digest);
  }
};

// Django's salts: 22 letters and digits (its get_random_string).
std::string django_salt() {
  static constexpr std::string_view kAlphanumeric =
      "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
  std::string salt;
  for (int i = 0; i < 22; ++i)
    salt += kAlphanumeric[randombytes_uniform(static_cast<std::uint32_t>(kAlphanumeric.size()))];
  return salt;
}

struct Make {
  std::string_view password;
  std::string kind;

  std::optional<std::string> operator()(const Argon2Kind& cost) const {
    std::vector<unsigned char> salt = random_bytes(16);
    DerivedKey key(32);
    if (!derive_argon2(cost, password, salt, key)) return std::nullopt;
    constexpr int kVariant = sodium_base64_VARIANT_ORIGINAL_NO_PADDING;
    return kind + "$" + encode_base64(salt, kVariant) + "$" + encode_base64(key.bytes(), kVariant);
  }
  std::optional<std::string> operator()(const BcryptCost& cost) const {
    std::optional<std::string> setting = crypt_setting(kind.substr(0, 4), cost.cost);
    return setting ? run_crypt(password, *setting) : std::nullopt;
  }
  std::optional<std::string> operator()(const ShaCryptCost& cost) const {
    std::optional<std::string> setting = crypt_setting(kind.substr(0, 3), cost.rounds);
    return setting ? run_crypt(password, *setting) : std::nullopt;
  }
  std::optional<std::string> operator()(const ScryptCost& cost) const {
    if (cost.crypt_form) {
      // libxcrypt's own setting, its N, r and p (11 characters after "$7$")
      // replaced by the kind's: the rest is the random salt.
      std::optional<std::string> setting = crypt_setting("$7$", 0);
      if (!setting || setting->size() <= 14) return std::nullopt;
      return run_crypt(password, kind + setting->substr(14));
    }
    std::vector<unsigned char> salt = random_bytes(16);
    DerivedKey key(32);
    if (!derive_scrypt(cost, password, salt, key)) return std::nullopt;
    // passlib writes "$scrypt$" salts and digests in standard base 64.
    constexpr int kVariant = sodium_base64_VARIANT_ORIGINAL_NO_PADDING;
    return kind + "$" + encode_base64(salt, kVariant) + "$" + encode_base64(key.bytes(), kVariant);
  }
  std::optional<std::string> operator()(const Pbkdf2Cost& cost) const {
    DerivedKey key(pbkdf2_digest_size(cost.digest));
    if (cost.django) {
      std::string salt = django_salt();
      if (!derive_pbkdf2(cost, password, {salt.begin(), salt.end()}, key)) return std::nullopt;
      return kind + "$" + salt + "$" + encode_base64(key.bytes(), sodium_base64_VARIANT_ORIGINAL);
    }
    std::vector<unsigned char> salt = random_bytes(16);
    if (!derive_pbkdf2(cost, password, salt, key)) return std::nullopt;
    return kind + "$" + encode_ab64(salt) + "$" + encode_ab64(key.bytes());
  }
};

}  // namespace

bool parsed_hash_matches(const ParsedHash& parsed, std::string_view stored,
                         std::string_view password) {
  return std::visit(Matches{parsed, stored, password}, parsed.cost);
}

std::optional<std::string> make_hash(const HashCost& cost, std::string_view password) {
  return std::visit(Make{password, hash_kind_text(cost)}, cost);
}

}  // namespace authd
