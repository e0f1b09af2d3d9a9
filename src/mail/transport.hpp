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
  // Permanent: this mail can never be delivered (the relay refused its
  // recipient for good), so the outbox drops it instead of retrying.
  enum class Kind { may_pass, permanent };
  explicit MailError(const std::string& what, Kind kind = Kind::may_pass)
      : std::runtime_error(what), kind_(kind) {}
  bool permanent() const { return kind_ == Kind::permanent; }

 private:
  Kind kind_;
};

class MailTransport {
 public:
  virtual ~MailTransport() = default;
  virtual void send(const MailMessage& message) = 0;  // throws MailError
  // Makes what send() handed over durable, before the outbox marks it sent:
  // called once after a claim's sends (a transport may defer a shared flush
  // to it). Nothing to do for a relay, which has the mail once send returns.
  virtual void make_durable() {}
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

// Whether a failed SMTP delivery (libcurl's result code, the relay's last
// reply code, libcurl's error text) means the relay refused the recipient
// for good: a 5xx reply to RCPT TO. Only that one is permanent: a 5xx to
// MAIL FROM or to the message, or an AUTH failure, would refuse every mail
// alike (a setting to fix, after which the retries deliver), and a 4xx is
// temporary by definition (RFC 5321 4.2.1).
bool smtp_recipient_refused_for_good(int curl_result, long reply, std::string_view error_text);

// SMTP through libcurl; a failure (refused, time-out, 4xx/5xx) throws
// MailError and the outbox retries, except a 5xx reply to RCPT TO: the
// recipient is refused for good, and that MailError is permanent.
std::unique_ptr<MailTransport> make_smtp_transport(SmtpSettings settings);

}  // namespace authd
