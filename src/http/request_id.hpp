// X-Request-Id (interface.md 1.9).
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace authd {

// The client's id when it sent exactly one of 1 to 128 characters of
// A-Z a-z 0-9 . _ : -, otherwise a freshly generated one.
std::string choose_request_id(const std::vector<std::string_view>& client_values);

bool is_acceptable_request_id(std::string_view id);

}  // namespace authd
