#include "http/request_id.hpp"

#include <cstring>

#include "core/time.hpp"
#include "crypto/random.hpp"

namespace authd {

bool is_acceptable_request_id(std::string_view id) {
  if (id.empty() || id.size() > 128) return false;
  for (char c : id) {
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              (c != '\0' && std::strchr("._:-", c) != nullptr);
    if (!ok) return false;
  }
  return true;
}

std::string choose_request_id(const std::vector<std::string_view>& client_values) {
  if (client_values.size() == 1 && is_acceptable_request_id(client_values.front()))
    return std::string(client_values.front());
  return new_uuid_v7(now_millis());
}

}  // namespace authd
