// Signing a webhook as the Standard Webhooks specification says
// (interface.md 14.4): the signing secret is `whsec_` and the base64 of the
// key; each attempt is signed with HMAC-SHA256 over "{id}.{timestamp}.{body}"
// and sent as `webhook-signature: v1,<base64>`. The HMAC and the base64 are
// libsodium's.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace authd {

// The key of a signing secret, wiped when it goes.
class WebhookKey {
 public:
  explicit WebhookKey(std::vector<std::uint8_t> bytes) : bytes_(std::move(bytes)) {}
  ~WebhookKey();
  WebhookKey(const WebhookKey& other) = default;
  WebhookKey& operator=(const WebhookKey&) = delete;
  WebhookKey(WebhookKey&&) = default;
  WebhookKey& operator=(WebhookKey&&) = delete;

  const std::vector<std::uint8_t>& bytes() const { return bytes_; }

 private:
  std::vector<std::uint8_t> bytes_;
};

// The sizes of key the specification allows.
inline constexpr std::size_t kWebhookKeyMinBytes = 24;
inline constexpr std::size_t kWebhookKeyMaxBytes = 64;

// "whsec_<base64>" (one trailing newline tolerated) -> its key; none, with
// `problem` saying why without quoting the text, when it is not one.
std::optional<WebhookKey> parse_webhook_secret(std::string_view text, std::string& problem);

// The secret file of --webhook-secret-file: refused when missing,
// unreadable, readable by every user, or not a secret. `problem` names the
// path and the reason, never the content.
std::optional<WebhookKey> read_webhook_secret_file(const std::string& path, std::string& problem);

// The value of the webhook-signature header: "v1," and the base64 of
// HMAC-SHA256(key, "{id}.{timestamp}.{body}").
std::string webhook_signature(const WebhookKey& key, std::string_view id, std::int64_t timestamp,
                              std::string_view body);

}  // namespace authd
