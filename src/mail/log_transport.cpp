#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <system_error>

#include <fmt/format.h>

#include "core/wipe.hpp"
#include "mail/transport.hpp"

namespace authd {
namespace {

class LogTransport final : public MailTransport {
 public:
  explicit LogTransport(std::filesystem::path directory) : directory_(std::move(directory)) {
    std::error_code ec;
    std::filesystem::create_directories(directory_, ec);
    if (ec) throw MailError("cannot create mail directory: " + ec.message());
    ::chmod(directory_.c_str(), 0700);
  }

  void send(const MailMessage& message) override {
    std::string text = render_rfc5322(message);
    WipeOnExit wipe_text(text);  // it holds a live reset link
    // Unique and sortable: time, then a per-process sequence number (padded,
    // so that text order is delivery order within one millisecond too).
    std::string name = fmt::format("{:013}-{}-{:010}", message.date, ::getpid(), ++sequence_);
    auto temporary = directory_ / (name + ".tmp");
    auto final_path = directory_ / (name + ".eml");

    int fd = ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd < 0)
      throw MailError(std::string("cannot create mail file: ") +
                      std::generic_category().message(errno));
    std::size_t written = 0;
    while (written < text.size()) {
      ssize_t n = ::write(fd, text.data() + written, text.size() - written);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) {
        ::close(fd);
        ::unlink(temporary.c_str());
        throw MailError(std::string("cannot write mail file: ") +
                        std::generic_category().message(errno));
      }
      written += static_cast<std::size_t>(n);
    }
    ::fsync(fd);
    ::close(fd);
    // Readers see a whole .eml file or none.
    if (::rename(temporary.c_str(), final_path.c_str()) != 0) {
      ::unlink(temporary.c_str());
      throw MailError(std::string("cannot rename mail file: ") +
                      std::generic_category().message(errno));
    }
  }

  // The outbox marks the mails sent once this returns: make their new names
  // durable first, so that a machine crash cannot lose a "sent" mail. One
  // fsync of the directory covers every rename of the claim.
  void make_durable() override {
    int dir = ::open(directory_.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dir >= 0) {
      ::fsync(dir);
      ::close(dir);
    }
  }

 private:
  std::filesystem::path directory_;
  std::atomic<unsigned long> sequence_{0};
};

}  // namespace

std::unique_ptr<MailTransport> make_log_transport(std::filesystem::path directory) {
  return std::make_unique<LogTransport>(std::move(directory));
}

}  // namespace authd
