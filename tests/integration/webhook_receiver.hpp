// A webhook receiver for the integration tests (interface.md 14.4):
// tests/support/webhook_receiver.mjs under Node, which verifies every
// delivery with the `standardwebhooks` package from npm, an implementation
// independent of authd's, and records it. What it answers can be changed
// while it runs.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace authd::test {

// Writes `whsec_` and the base64 of `key_bytes` random bytes to a new file
// of mode 0600 in `directory`; returns its path.
std::string write_webhook_secret(const std::string& directory, const std::string& name);

class WebhookReceiver {
 public:
  // Verifies with the secret in `secret_file`; answers `status` ("204",
  // "500", or "hang": never).
  explicit WebhookReceiver(const std::string& secret_file, const std::string& status = "204");
  ~WebhookReceiver();
  WebhookReceiver(const WebhookReceiver&) = delete;
  WebhookReceiver& operator=(const WebhookReceiver&) = delete;

  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_) + "/hooks/authd"; }
  void answer(const std::string& status);  // from the next request on

  // Every request so far, oldest first: receivedAt (ms), id, timestamp,
  // signature, contentType, body, verified, error, answer.
  std::vector<nlohmann::json> requests() const;
  // Polls (bounded) until at least `count` requests arrived; returns them.
  std::vector<nlohmann::json> wait_for(std::size_t count) const;

 private:
  std::string directory_;
  int pid_ = -1;
  unsigned short port_ = 0;
};

}  // namespace authd::test
