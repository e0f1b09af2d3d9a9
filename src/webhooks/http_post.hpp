// One HTTP(S) POST of a webhook through libcurl: TLS certificates verified
// (the system's CAs), no redirect followed, one time-out for the whole
// exchange, connection included. The receiver's answer is read only for its
// status: a body is discarded unread, and nothing the receiver says reaches
// the log or the store.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "core/duration.hpp"

namespace authd {

struct HttpPostOutcome {
  long status = 0;    // the HTTP status, 0 when there was no answer
  std::string error;  // libcurl's reason when there was no answer ("Timeout was reached")
  bool delivered() const { return status >= 200 && status <= 299; }
  // What a failed attempt stores as its last_error: the status or the reason.
  std::string summary() const;
};

using HttpHeaderList = std::vector<std::pair<std::string, std::string>>;

// Sends `body` to `url` (http:// or https:// only) with `headers`.
HttpPostOutcome http_post(const std::string& url, const HttpHeaderList& headers,
                          const std::string& body, Duration timeout);

}  // namespace authd
