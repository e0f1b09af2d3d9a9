#include "upstream/http_client.hpp"

#include <curl/curl.h>

#include <memory>
#include <mutex>

namespace authd {
namespace {

struct CurlDeleter {
  void operator()(CURL* curl) const { curl_easy_cleanup(curl); }
};
struct SlistDeleter {
  void operator()(curl_slist* list) const { curl_slist_free_all(list); }
};

// Keeps the answer, up to the bound: a larger one fails the transfer.
std::size_t keep_answer(char* data, std::size_t size, std::size_t count, void* user) {
  auto* body = static_cast<std::string*>(user);
  const std::size_t bytes = size * count;
  if (body->size() + bytes > kMaxUpstreamAnswer) return 0;
  body->append(data, bytes);
  return bytes;
}

}  // namespace

std::string form_component(std::string_view text) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : text) {
    if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' ||
        c == '.' || c == '_' || c == '~') {
      out += static_cast<char>(c);
    } else {
      out += '%';
      out += kHex[c >> 4];
      out += kHex[c & 15];
    }
  }
  return out;
}

UpstreamHttpAnswer upstream_http(const UpstreamHttpRequest& request) {
  static std::once_flag curl_ready;
  std::call_once(curl_ready, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
  UpstreamHttpAnswer answer;
  std::unique_ptr<CURL, CurlDeleter> curl(curl_easy_init());
  if (!curl) {
    answer.error = "cannot create a libcurl handle";
    return answer;
  }
  curl_slist* list = nullptr;
  for (const std::string& line : request.headers) list = curl_slist_append(list, line.c_str());
  list = curl_slist_append(list, "Expect:");
  std::unique_ptr<curl_slist, SlistDeleter> header_list(list);

  CURL* c = curl.get();
  curl_easy_setopt(c, CURLOPT_URL, request.url.c_str());
  curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
  curl_easy_setopt(c, CURLOPT_FOLLOWLOCATION, 0L);
  curl_easy_setopt(c, CURLOPT_SSL_VERIFYPEER, 1L);
  curl_easy_setopt(c, CURLOPT_SSL_VERIFYHOST, 2L);
  curl_easy_setopt(c, CURLOPT_USERAGENT, "authd");
  if (request.post) {
    curl_easy_setopt(c, CURLOPT_POST, 1L);
    curl_easy_setopt(c, CURLOPT_POSTFIELDS, request.form.data());
    curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(request.form.size()));
  }
  curl_easy_setopt(c, CURLOPT_HTTPHEADER, header_list.get());
  curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, &keep_answer);
  curl_easy_setopt(c, CURLOPT_WRITEDATA, &answer.body);
  curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
  const long timeout_ms = static_cast<long>(request.timeout.count());
  curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS, timeout_ms);
  curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, timeout_ms);

  CURLcode result = curl_easy_perform(c);
  if (result != CURLE_OK) {
    answer.error = curl_easy_strerror(result);
    answer.body.clear();
    return answer;
  }
  curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &answer.status);
  return answer;
}

}  // namespace authd
