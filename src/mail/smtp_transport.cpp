// SMTP delivery through libcurl (smtp:// with STARTTLS, or smtps://). One
// connection per message: reset mails are rare, and a fresh connection never
// inherits a half-broken session from an earlier failure.
#include <curl/curl.h>

#include <algorithm>
#include <cstring>
#include <memory>
#include <mutex>

#include "core/loopback.hpp"
#include "core/wipe.hpp"
#include "mail/transport.hpp"

namespace authd {
namespace {

// The addr-spec of "Name <addr>" or of a bare "addr", for the envelope.
std::string envelope_address(std::string_view mailbox) {
  auto open = mailbox.rfind('<');
  auto close = mailbox.rfind('>');
  if (open != std::string_view::npos && close != std::string_view::npos && open < close)
    mailbox = mailbox.substr(open + 1, close - open - 1);
  return "<" + std::string(mailbox) + ">";
}

// libcurl pulls the message through this callback.
struct Upload {
  std::string_view text;
  std::size_t offset = 0;
};

std::size_t read_upload(char* buffer, std::size_t size, std::size_t count, void* user) {
  auto* upload = static_cast<Upload*>(user);
  std::size_t n = std::min(size * count, upload->text.size() - upload->offset);
  std::memcpy(buffer, upload->text.data() + upload->offset, n);
  upload->offset += n;
  return n;
}

struct CurlDeleter {
  void operator()(CURL* curl) const { curl_easy_cleanup(curl); }
};
struct SlistDeleter {
  void operator()(curl_slist* list) const { curl_slist_free_all(list); }
};

class SmtpTransport final : public MailTransport {
 public:
  explicit SmtpTransport(SmtpSettings settings) : settings_(std::move(settings)) {
    static std::once_flag curl_ready;
    std::call_once(curl_ready, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
    use_ssl_ = tls_mode();
  }

  ~SmtpTransport() override { wipe(settings_.password); }

  void send(const MailMessage& message) override {
    std::string text = render_rfc5322(message);
    WipeOnExit wipe_text(text);  // it holds a live reset link
    std::unique_ptr<CURL, CurlDeleter> curl(curl_easy_init());
    if (!curl) throw MailError("smtp: cannot create a libcurl handle");
    std::string from = envelope_address(message.from);
    std::unique_ptr<curl_slist, SlistDeleter> recipients(
        curl_slist_append(nullptr, envelope_address(message.to).c_str()));
    Upload upload{text};
    char error[CURL_ERROR_SIZE] = "";

    CURL* c = curl.get();
    curl_easy_setopt(c, CURLOPT_URL, settings_.url.c_str());
    curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "smtp,smtps");
    curl_easy_setopt(c, CURLOPT_USE_SSL, use_ssl_);
    if (!settings_.ca_file.empty()) curl_easy_setopt(c, CURLOPT_CAINFO, settings_.ca_file.c_str());
    if (!settings_.username.empty()) {
      curl_easy_setopt(c, CURLOPT_USERNAME, settings_.username.c_str());
      curl_easy_setopt(c, CURLOPT_PASSWORD, settings_.password.c_str());
    }
    curl_easy_setopt(c, CURLOPT_MAIL_FROM, from.c_str());
    curl_easy_setopt(c, CURLOPT_MAIL_RCPT, recipients.get());
    curl_easy_setopt(c, CURLOPT_READFUNCTION, &read_upload);
    curl_easy_setopt(c, CURLOPT_READDATA, &upload);
    curl_easy_setopt(c, CURLOPT_UPLOAD, 1L);
    curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);  // we run on a worker thread
    long timeout_ms = static_cast<long>(settings_.timeout.count());
    curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS, timeout_ms);
    curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, timeout_ms);
    curl_easy_setopt(c, CURLOPT_ERRORBUFFER, error);

    CURLcode result = curl_easy_perform(c);
    if (result != CURLE_OK) {
      long reply = 0;
      curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &reply);
      std::string reason = error[0] != '\0' ? error : curl_easy_strerror(result);
      auto kind = smtp_recipient_refused_for_good(result, reply, reason)
                      ? MailError::Kind::permanent
                      : MailError::Kind::may_pass;
      throw MailError(
          "smtp: " + reason + (reply != 0 ? " (reply " + std::to_string(reply) + ")" : ""), kind);
    }
  }

 private:
  long tls_mode() const {
    using Mode = SmtpSettings::StartTls;
    switch (settings_.starttls) {
      case Mode::required:
        return CURLUSESSL_ALL;
      case Mode::opportunistic:
        return CURLUSESSL_TRY;
      case Mode::off:
        return CURLUSESSL_NONE;
      case Mode::automatic:
        break;
    }
    // A relay on this machine cannot be listened to on the network.
    return is_loopback_smtp_host(settings_.url) ? CURLUSESSL_TRY : CURLUSESSL_ALL;
  }

  SmtpSettings settings_;
  long use_ssl_ = CURLUSESSL_ALL;
};

}  // namespace

// libcurl (lib/smtp.c) fails a refused RCPT TO with CURLE_SEND_ERROR and the
// text "RCPT failed: <code>"; its other SMTP steps name themselves likewise.
bool smtp_recipient_refused_for_good(int curl_result, long reply, std::string_view error_text) {
  return curl_result == CURLE_SEND_ERROR && reply >= 500 && reply <= 599 &&
         error_text.starts_with("RCPT failed");
}

bool is_loopback_smtp_host(std::string_view url) {
  auto scheme_end = url.find("://");
  if (scheme_end != std::string_view::npos) url.remove_prefix(scheme_end + 3);
  url = url.substr(0, url.find_first_of("/?#"));  // the authority
  auto at = url.rfind('@');                       // credentials in the URL
  if (at != std::string_view::npos) url.remove_prefix(at + 1);
  std::string host;
  if (!url.empty() && url.front() == '[') {
    auto close = url.find(']');
    if (close == std::string_view::npos) return false;
    host = std::string(url.substr(1, close - 1));
  } else {
    host = std::string(url.substr(0, url.find(':')));
  }
  return is_loopback_host(host);
}

std::unique_ptr<MailTransport> make_smtp_transport(SmtpSettings settings) {
  return std::make_unique<SmtpTransport>(std::move(settings));
}

}  // namespace authd
