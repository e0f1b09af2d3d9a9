#include "webhooks/signature.hpp"

#include <cstring>

#include <sodium.h>

#include "core/wipe.hpp"
#include "crypto/sealed_secrets.hpp"

namespace authd {
namespace {

constexpr std::string_view kWebhookSecretPrefix = "whsec_";
constexpr int kWebhookBase64 = sodium_base64_VARIANT_ORIGINAL;

}  // namespace

WebhookKey::~WebhookKey() { sodium_memzero(bytes_.data(), bytes_.size()); }

std::optional<WebhookKey> parse_webhook_secret(std::string_view text, std::string& problem) {
  if (text.ends_with('\n')) text.remove_suffix(1);
  if (text.ends_with('\r')) text.remove_suffix(1);
  // The prefix is required: a bare base64 text could be another kind of
  // key (64 hexadecimal digits are valid base64 too).
  if (!text.starts_with(kWebhookSecretPrefix)) {
    problem = "not a webhook secret: it must start with whsec_";
    return std::nullopt;
  }
  text.remove_prefix(kWebhookSecretPrefix.size());
  std::vector<std::uint8_t> key(text.size());
  std::size_t length = 0;
  if (text.empty() || sodium_base642bin(key.data(), key.size(), text.data(), text.size(), nullptr,
                                        &length, nullptr, kWebhookBase64) != 0) {
    sodium_memzero(key.data(), key.size());
    problem = "not a webhook secret: whsec_ must be followed by base64 (openssl rand -base64 32)";
    return std::nullopt;
  }
  key.resize(length);
  WebhookKey parsed(std::move(key));
  if (length < kWebhookKeyMinBytes || length > kWebhookKeyMaxBytes) {
    problem = "the webhook secret's key must be 24 to 64 bytes (openssl rand -base64 32)";
    return std::nullopt;
  }
  return parsed;
}

std::optional<WebhookKey> read_webhook_secret_file(const std::string& path, std::string& problem) {
  std::optional<std::string> read = read_private_file(path, problem);
  if (!read) return std::nullopt;
  std::string& text = *read;
  WipeOnExit wipe_text(text);
  std::string reason;
  std::optional<WebhookKey> key = parse_webhook_secret(text, reason);
  if (!key) problem = path + ": " + reason;
  return key;
}

std::string webhook_signature(const WebhookKey& key, std::string_view id, std::int64_t timestamp,
                              std::string_view body) {
  // Any key length: the init/update/final form (crypto_auth_hmacsha256
  // itself takes 32-byte keys only).
  crypto_auth_hmacsha256_state state;
  crypto_auth_hmacsha256_init(&state, key.bytes().data(), key.bytes().size());
  auto update = [&state](std::string_view part) {
    crypto_auth_hmacsha256_update(&state, reinterpret_cast<const unsigned char*>(part.data()),
                                  part.size());
  };
  std::string stamp = std::to_string(timestamp);
  update(id);
  update(".");
  update(stamp);
  update(".");
  update(body);
  unsigned char mac[crypto_auth_hmacsha256_BYTES];
  crypto_auth_hmacsha256_final(&state, mac);
  std::string encoded(sodium_base64_ENCODED_LEN(sizeof mac, kWebhookBase64), '\0');
  sodium_bin2base64(encoded.data(), encoded.size(), mac, sizeof mac, kWebhookBase64);
  encoded.resize(std::strlen(encoded.c_str()));
  return "v1," + encoded;
}

}  // namespace authd
