// Where mail goes. Transports are synchronous and may be slow; only the
// outbox worker's own thread calls them.
#pragma once

#include <filesystem>
#include <memory>
#include <stdexcept>
#include <string>

#include "core/duration.hpp"

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

struct SmtpSettings {
  std::string url;  // smtp://host[:port] (STARTTLS) or smtps://host[:port] (TLS from the start)
  std::string username;  // empty: no AUTH
  std::string password;
  // STARTTLS on smtp:// URLs. `automatic`: required, except for a relay on
  // a loopback address, where it is used when offered.
  enum class StartTls { automatic, required, opportunistic, off } starttls = StartTls::automatic;
  std::string ca_file;  // extra trust anchors (a private CA); empty: the system's
  Duration timeout = std::chrono::seconds(30);  // connect, and the whole delivery
};

// True when the relay of an smtp:// or smtps:// URL is this machine: a
// numeric loopback address (127.0.0.0/8, ::1) or the name "localhost".
bool is_loopback_smtp_host(std::string_view url);

// SMTP through libcurl; a failure (refused, time-out, 4xx/5xx) throws
// MailError and the outbox retries.
std::unique_ptr<MailTransport> make_smtp_transport(SmtpSettings settings);

}  // namespace authd
