// Fuzz target: the e-mail address rules (auth/credentials/email.cpp, interface.md 3.1:
// WHATWG "valid e-mail address", 1 to 254 characters, ASCII only), the
// canonical form and the masked form used in logs.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "auth/credentials/email.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view email(reinterpret_cast<const char*>(data), size);
  bool valid = authd::is_valid_email(email);
  std::string masked = authd::mask_email(email);
  std::string canonical = authd::canonical_email(email);
  if (canonical.size() != email.size()) std::abort();
  if (!valid) return 0;
  if (email.empty() || email.size() > 254) std::abort();
  auto at = email.find('@');
  if (at == std::string_view::npos || at == 0 || email.find('@', at + 1) != std::string_view::npos)
    std::abort();
  for (char c : email) {
    auto byte = static_cast<unsigned char>(c);
    if (byte <= 0x20 || byte >= 0x7f || c == '"' || c == '[' || c == ']') std::abort();
  }
  // Case-insensitive: the canonical form is valid and lowercase.
  if (!authd::is_valid_email(canonical)) std::abort();
  for (char c : canonical) {
    if (c >= 'A' && c <= 'Z') std::abort();
  }
  // The log form never shows the local part beyond its first character.
  std::string expected_mask = (at > 1 ? std::string(1, email.front()) : std::string()) + "***" +
                              std::string(email.substr(at));
  if (masked != expected_mask) std::abort();
  return 0;
}
