// Secrets authd must read back (TOTP secrets, interface.md 12.2), sealed
// with libsodium's XChaCha20-Poly1305 AEAD under a key that is not in the
// database: a copy of the database alone yields no usable secret. Each
// sealed value names the key that sealed it (a digest of the key, not the
// key), so that during a key rotation a second, previous key still opens
// what the old key sealed while it is sealed anew (docs/guide/operations.md).
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace authd {

struct SecretKey {
  std::array<std::uint8_t, 32> bytes{};
  std::string id;  // 8 hex digits of a keyed BLAKE2b digest of the key

  SecretKey() = default;
  explicit SecretKey(const std::array<std::uint8_t, 32>& key);
  SecretKey(const SecretKey&) = default;
  SecretKey& operator=(const SecretKey&) = default;
  ~SecretKey();
};

// A key file holds the key as 64 hexadecimal digits (what `openssl rand
// -hex 32` prints), then optionally a newline. Nothing when the file cannot
// be read, is readable by every user, or holds anything else; `problem`
// says which, without the file's content.
std::optional<SecretKey> read_secret_key_file(const std::string& path, std::string& problem);

// The whole text of a file that holds a secret, refused when every user may
// read it; `problem` names the file, never its content. The caller wipes
// the text (the webhook secret's file reads through this too).
std::optional<std::string> read_private_file(const std::string& path, std::string& problem);

// Creates `path` with a new random key, mode 0600, failing if it exists:
// the key is written whole under a temporary name and linked into place,
// so that of two processes starting at once one key wins, and `path` is
// never seen without its key. False with `problem` set (and errno EEXIST
// when another process made the key) when it cannot.
bool create_secret_key_file(const std::string& path, std::string& problem);

class SecretSealer {
 public:
  explicit SecretSealer(const SecretKey& current,
                        const std::optional<SecretKey>& previous = std::nullopt);

  // "v1.<key id>.<base64 of nonce and ciphertext>": text, so that both
  // backends store it in a TEXT column. `context` (e.g. the account's id)
  // is bound to the ciphertext as associated data: a sealed value copied to
  // another account's row does not open there.
  std::string seal(std::string_view plaintext, std::string_view context) const;

  struct Opened {
    std::string plaintext;
    bool by_previous_key = false;  // to be sealed anew with the current key
  };
  // Nothing when the value is malformed, sealed by an unknown key, altered,
  // or sealed for another context.
  std::optional<Opened> open(std::string_view sealed, std::string_view context) const;

  const std::string& current_key_id() const { return current_.id; }

  // HMAC-SHA-256 (libsodium) of `message` under a key derived from the
  // current key for `purpose` (a keyed BLAKE2b of the purpose): a digest
  // that a copy of the database alone cannot test guesses against (the
  // codes of interface.md 19.2). `previous` uses the previous key, when
  // there is one (a digest made before a rotation): nothing otherwise.
  std::array<std::uint8_t, 32> keyed_digest(std::string_view purpose,
                                            std::string_view message) const;
  std::optional<std::array<std::uint8_t, 32>> previous_keyed_digest(std::string_view purpose,
                                                                    std::string_view message) const;

 private:
  SecretKey current_;
  std::optional<SecretKey> previous_;
};

}  // namespace authd
