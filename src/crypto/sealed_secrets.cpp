#include "crypto/sealed_secrets.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <iterator>
#include <system_error>
#include <vector>

#include <sodium.h>

#include "core/wipe.hpp"

namespace authd {
namespace {

constexpr std::string_view kVersion = "v1";
constexpr std::size_t kNonceBytes = crypto_aead_xchacha20poly1305_ietf_NPUBBYTES;
constexpr std::size_t kTagBytes = crypto_aead_xchacha20poly1305_ietf_ABYTES;
constexpr int kBase64 = sodium_base64_VARIANT_ORIGINAL;

std::string key_id(const std::array<std::uint8_t, 32>& key) {
  // Keyed by the key itself over a fixed label: a name for the key that
  // reveals nothing of it.
  constexpr std::string_view label = "authd secret key id";
  std::array<std::uint8_t, 16> digest{};
  crypto_generichash(digest.data(), digest.size(),
                     reinterpret_cast<const unsigned char*>(label.data()), label.size(), key.data(),
                     key.size());
  std::array<char, 9> hex{};
  sodium_bin2hex(hex.data(), hex.size(), digest.data(), 4);
  return std::string(hex.data(), 8);
}

std::array<std::uint8_t, 32> hmac_under(const SecretKey& key, std::string_view purpose,
                                        std::string_view message) {
  std::array<std::uint8_t, crypto_auth_hmacsha256_KEYBYTES> subkey{};
  crypto_generichash(subkey.data(), subkey.size(),
                     reinterpret_cast<const unsigned char*>(purpose.data()), purpose.size(),
                     key.bytes.data(), key.bytes.size());
  std::array<std::uint8_t, crypto_auth_hmacsha256_BYTES> digest{};
  crypto_auth_hmacsha256(digest.data(), reinterpret_cast<const unsigned char*>(message.data()),
                         message.size(), subkey.data());
  sodium_memzero(subkey.data(), subkey.size());
  return digest;
}

std::string hex_key_text(const std::array<std::uint8_t, 32>& key) {
  std::string hex(64 + 1, '\0');
  sodium_bin2hex(hex.data(), hex.size(), key.data(), key.size());
  hex.back() = '\n';
  return hex;
}

}  // namespace

SecretKey::SecretKey(const std::array<std::uint8_t, 32>& key) : bytes(key), id(key_id(key)) {}

SecretKey::~SecretKey() { sodium_memzero(bytes.data(), bytes.size()); }

std::optional<std::string> read_private_file(const std::string& path, std::string& problem) {
  struct stat info {};
  if (::stat(path.c_str(), &info) != 0) {
    problem = path + ": " + std::generic_category().message(errno);
    return std::nullopt;
  }
  if ((info.st_mode & S_IROTH) != 0) {
    problem = path + ": readable by every user (chmod 600, or 640 for a group)";
    return std::nullopt;
  }
  std::ifstream file(path, std::ios::binary);
  if (!file) {
    problem = path + ": cannot be read";
    return std::nullopt;
  }
  return std::string((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
}

std::optional<SecretKey> read_secret_key_file(const std::string& path, std::string& problem) {
  std::optional<std::string> read = read_private_file(path, problem);
  if (!read) return std::nullopt;
  std::string& text = *read;
  WipeOnExit wipe_text(text);
  if (!text.empty() && text.back() == '\n') text.pop_back();
  if (!text.empty() && text.back() == '\r') text.pop_back();
  std::array<std::uint8_t, 32> key{};
  std::size_t length = 0;
  if (text.size() != 64 ||
      sodium_hex2bin(key.data(), key.size(), text.data(), text.size(), nullptr, &length, nullptr) !=
          0 ||
      length != key.size()) {
    sodium_memzero(key.data(), key.size());
    problem = path + ": not a key (64 hexadecimal digits, as `openssl rand -hex 32` prints)";
    return std::nullopt;
  }
  SecretKey loaded(key);
  sodium_memzero(key.data(), key.size());
  return loaded;
}

bool create_secret_key_file(const std::string& path, std::string& problem) {
  // Written whole under a temporary name, then linked into place: link()
  // fails with EEXIST when `path` exists (of two processes, one key), and
  // `path` never exists without its key in it (a process starting at the
  // same time, or after a crash, would read an empty file: "not a key").
  std::array<std::uint8_t, 8> suffix{};
  randombytes_buf(suffix.data(), suffix.size());
  std::array<char, 17> suffix_hex{};
  sodium_bin2hex(suffix_hex.data(), suffix_hex.size(), suffix.data(), suffix.size());
  const std::string temporary = path + ".new-" + suffix_hex.data();
  int fd = ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd < 0) {
    int error = errno;
    problem = path + ": " + std::generic_category().message(error);
    errno = error;
    return false;
  }
  std::array<std::uint8_t, 32> key{};
  randombytes_buf(key.data(), key.size());
  std::string text = hex_key_text(key);
  sodium_memzero(key.data(), key.size());
  bool written = ::write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size()) &&
                 ::fsync(fd) == 0;
  wipe(text);
  ::close(fd);
  int linked = written ? ::link(temporary.c_str(), path.c_str()) : -1;
  int error = errno;
  ::unlink(temporary.c_str());
  if (!written) {
    problem = path + ": could not be written";
    return false;
  }
  if (linked != 0) {
    problem = path + ": " + std::generic_category().message(error);
    errno = error;  // EEXIST: another process made the key
    return false;
  }
  return true;
}

SecretSealer::SecretSealer(const SecretKey& current, const std::optional<SecretKey>& previous)
    : current_(current), previous_(previous) {}

std::string SecretSealer::seal(std::string_view plaintext, std::string_view context) const {
  std::vector<unsigned char> box(kNonceBytes + plaintext.size() + kTagBytes);
  randombytes_buf(box.data(), kNonceBytes);
  unsigned long long sealed_length = 0;
  crypto_aead_xchacha20poly1305_ietf_encrypt(
      box.data() + kNonceBytes, &sealed_length,
      reinterpret_cast<const unsigned char*>(plaintext.data()), plaintext.size(),
      reinterpret_cast<const unsigned char*>(context.data()), context.size(), nullptr, box.data(),
      current_.bytes.data());
  std::string encoded(sodium_base64_ENCODED_LEN(box.size(), kBase64), '\0');
  sodium_bin2base64(encoded.data(), encoded.size(), box.data(), box.size(), kBase64);
  encoded.resize(std::strlen(encoded.c_str()));
  return std::string(kVersion) + "." + current_.id + "." + encoded;
}

std::optional<SecretSealer::Opened> SecretSealer::open(std::string_view sealed,
                                                       std::string_view context) const {
  // v1.<8 hex digits>.<base64>
  if (sealed.size() < kVersion.size() + 10 || sealed.substr(0, kVersion.size()) != kVersion ||
      sealed[kVersion.size()] != '.' || sealed[kVersion.size() + 9] != '.')
    return std::nullopt;
  std::string_view id = sealed.substr(kVersion.size() + 1, 8);
  std::string_view encoded = sealed.substr(kVersion.size() + 10);
  const SecretKey* key = nullptr;
  if (id == current_.id)
    key = &current_;
  else if (previous_ && id == previous_->id)
    key = &*previous_;
  if (key == nullptr) return std::nullopt;

  std::vector<unsigned char> box(encoded.size());
  std::size_t box_length = 0;
  if (sodium_base642bin(box.data(), box.size(), encoded.data(), encoded.size(), nullptr,
                        &box_length, nullptr, kBase64) != 0 ||
      box_length < kNonceBytes + kTagBytes)
    return std::nullopt;
  Opened opened;
  opened.plaintext.resize(box_length - kNonceBytes - kTagBytes);
  unsigned long long plain_length = 0;
  if (crypto_aead_xchacha20poly1305_ietf_decrypt(
          reinterpret_cast<unsigned char*>(opened.plaintext.data()), &plain_length, nullptr,
          box.data() + kNonceBytes, box_length - kNonceBytes,
          reinterpret_cast<const unsigned char*>(context.data()), context.size(), box.data(),
          key->bytes.data()) != 0)
    return std::nullopt;
  opened.by_previous_key = key != &current_;
  return opened;
}

std::array<std::uint8_t, 32> SecretSealer::keyed_digest(std::string_view purpose,
                                                        std::string_view message) const {
  return hmac_under(current_, purpose, message);
}

std::optional<std::array<std::uint8_t, 32>> SecretSealer::previous_keyed_digest(
    std::string_view purpose, std::string_view message) const {
  if (!previous_) return std::nullopt;
  return hmac_under(*previous_, purpose, message);
}

}  // namespace authd
