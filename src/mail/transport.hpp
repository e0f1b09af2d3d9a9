// Where mail goes. Transports are synchronous and may be slow; only the
// outbox worker's own thread calls them.
#pragma once

#include <filesystem>
#include <memory>
#include <stdexcept>

#include "mail/message.hpp"

namespace authd {

class MailError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class MailTransport {
 public:
  virtual ~MailTransport() = default;
  virtual void send(const MailMessage& message) = 0;  // throws MailError
};

// The default transport: one .eml file per message in `directory` (created
// 0700; files 0600, as they hold live reset links), written atomically.
std::unique_ptr<MailTransport> make_log_transport(std::filesystem::path directory);

}  // namespace authd
