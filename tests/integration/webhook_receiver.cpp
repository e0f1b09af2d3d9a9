#include "webhook_receiver.hpp"
#include "node_server.hpp"
#include "source_paths.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <thread>

#include <sodium.h>

namespace authd::test {
namespace {

void replace_receiver_file(const std::string& path, const std::string& text) {
  std::string temporary = path + ".tmp";
  std::ofstream(temporary, std::ios::trunc) << text;
  std::filesystem::rename(temporary, path);  // read whole or not at all
}

}  // namespace

std::string write_webhook_secret(const std::string& directory, const std::string& name) {
  unsigned char key[32];
  randombytes_buf(key, sizeof key);
  char encoded[sodium_base64_ENCODED_LEN(sizeof key, sodium_base64_VARIANT_ORIGINAL)];
  sodium_bin2base64(encoded, sizeof encoded, key, sizeof key, sodium_base64_VARIANT_ORIGINAL);
  std::string path = directory + "/" + name;
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  if (fd < 0) throw std::runtime_error("cannot write " + path);
  std::string text = std::string("whsec_") + encoded + "\n";
  bool written = ::write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size());
  ::close(fd);
  if (!written) throw std::runtime_error("cannot write " + path);
  return path;
}

WebhookReceiver::WebhookReceiver(const std::string& secret_file, const std::string& status) {
  char pattern[] = "/tmp/authd-webhooks-XXXXXX";
  if (::mkdtemp(pattern) == nullptr) throw std::runtime_error("mkdtemp failed");
  directory_ = pattern;
  answer(status);
  std::string port_file = directory_ + "/port";
  std::vector<std::string> args = {
      "/usr/bin/node", source_path("tests/support/webhook_receiver.mjs"),
      "--secret-file", secret_file,
      "--port-file",   port_file,
      "--log",         directory_ + "/requests.jsonl",
      "--status-file", directory_ + "/status"};
  NodeServer server =
      start_node_server(args, directory_ + "/receiver.log", port_file, "the webhook receiver");
  pid_ = server.pid;
  port_ = server.port;
}

WebhookReceiver::~WebhookReceiver() {
  stop_node_server({pid_, port_});
  if (std::getenv("AUTHD_KEEP_TEST_DIRS") == nullptr) {
    std::error_code ignored;
    std::filesystem::remove_all(directory_, ignored);
  }
}

void WebhookReceiver::answer(const std::string& status) {
  replace_receiver_file(directory_ + "/status", status + "\n");
}

std::vector<nlohmann::json> WebhookReceiver::requests() const {
  std::vector<nlohmann::json> out;
  std::istringstream lines(whole_file_text(directory_ + "/requests.jsonl"));
  std::string line;
  while (std::getline(lines, line)) {
    auto parsed = nlohmann::json::parse(line, nullptr, false);
    if (!parsed.is_discarded()) out.push_back(std::move(parsed));  // a line being written
  }
  return out;
}

std::vector<nlohmann::json> WebhookReceiver::wait_for(std::size_t count) const {
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (std::chrono::steady_clock::now() < deadline) {
    if (requests().size() >= count) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return requests();
}

}  // namespace authd::test
