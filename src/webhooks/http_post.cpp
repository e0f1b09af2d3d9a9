#include "webhooks/http_post.hpp"

#include <curl/curl.h>

#include <memory>
#include <mutex>

namespace authd {
namespace {

struct PostCurlDeleter {
  void operator()(CURL* curl) const { curl_easy_cleanup(curl); }
};
struct PostSlistDeleter {
  void operator()(curl_slist* list) const { curl_slist_free_all(list); }
};

// The receiver's body is of no use to authd: dropped as it arrives.
std::size_t discard_answer(char* /*data*/, std::size_t size, std::size_t count, void* /*user*/) {
  return size * count;
}

}  // namespace

std::string HttpPostOutcome::summary() const {
  if (status != 0) return "HTTP " + std::to_string(status);
  return error.empty() ? std::string("no answer") : error;
}

HttpPostOutcome http_post(const std::string& url, const HttpHeaderList& headers,
                          const std::string& body, Duration timeout) {
  static std::once_flag curl_ready;
  std::call_once(curl_ready, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
  HttpPostOutcome outcome;
  std::unique_ptr<CURL, PostCurlDeleter> curl(curl_easy_init());
  if (!curl) {
    outcome.error = "cannot create a libcurl handle";
    return outcome;
  }
  curl_slist* list = nullptr;
  for (const auto& [name, value] : headers) {
    std::string line = name;
    line += ": ";
    line += value;
    list = curl_slist_append(list, line.c_str());
  }
  // No "Expect: 100-continue" round trip before larger bodies.
  list = curl_slist_append(list, "Expect:");
  std::unique_ptr<curl_slist, PostSlistDeleter> header_list(list);

  CURL* c = curl.get();
  curl_easy_setopt(c, CURLOPT_URL, url.c_str());
  curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
  curl_easy_setopt(c, CURLOPT_FOLLOWLOCATION, 0L);  // a 3xx is a failed attempt
  curl_easy_setopt(c, CURLOPT_SSL_VERIFYPEER, 1L);
  curl_easy_setopt(c, CURLOPT_SSL_VERIFYHOST, 2L);
  curl_easy_setopt(c, CURLOPT_POST, 1L);
  curl_easy_setopt(c, CURLOPT_POSTFIELDS, body.data());
  curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(body.size()));
  curl_easy_setopt(c, CURLOPT_HTTPHEADER, header_list.get());
  curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, &discard_answer);
  curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);  // we run on a worker thread
  long timeout_ms = static_cast<long>(timeout.count());
  curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS, timeout_ms);
  curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, timeout_ms);

  CURLcode result = curl_easy_perform(c);
  if (result != CURLE_OK) {
    // libcurl's generic reason, not its error buffer: that one may quote
    // the URL, and the URL may carry credentials.
    outcome.error = curl_easy_strerror(result);
    return outcome;
  }
  curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &outcome.status);
  return outcome;
}

}  // namespace authd
