#include "auth/credentials/email.hpp"

#include <cstring>

namespace authd {
namespace {

bool is_ascii_alnum(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

// WHATWG: 1*( ALPHA / DIGIT / "!#$%&'*+/=?^_`{|}~.-" )
bool is_valid_local_part(std::string_view local) {
  if (local.empty()) return false;
  for (char c : local) {
    // strchr also finds the terminating NUL: rule that byte out first.
    if (is_ascii_alnum(c)) continue;
    if (c == '\0' || std::strchr(".!#$%&'*+/=?^_`{|}~-", c) == nullptr) return false;
  }
  return true;
}

// WHATWG label: alnum, then up to 61 of alnum or '-', ending with alnum.
bool is_valid_label(std::string_view label) {
  if (label.empty() || label.size() > 63) return false;
  if (!is_ascii_alnum(label.front()) || !is_ascii_alnum(label.back())) return false;
  for (char c : label) {
    if (!is_ascii_alnum(c) && c != '-') return false;
  }
  return true;
}

bool is_valid_domain(std::string_view domain) {
  while (true) {
    auto dot = domain.find('.');
    if (!is_valid_label(domain.substr(0, dot))) return false;
    if (dot == std::string_view::npos) return true;
    domain.remove_prefix(dot + 1);
  }
}

}  // namespace

bool is_valid_email(std::string_view email) {
  if (email.empty() || email.size() > 254) return false;  // ASCII only, so bytes = characters
  auto at = email.find('@');
  if (at == std::string_view::npos) return false;
  return is_valid_local_part(email.substr(0, at)) && is_valid_domain(email.substr(at + 1));
}

std::string canonical_email(std::string_view email) {
  std::string out(email);
  for (char& c : out) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return out;
}

std::string mask_email(std::string_view email) {
  auto at = email.find('@');
  if (at == std::string_view::npos || at == 0) return "***";
  // A one-character local part would show whole, and half a UTF-8 sequence
  // is no character: hide the local part entirely then.
  bool show_first = at > 1 && static_cast<unsigned char>(email.front()) < 0x80;
  std::string_view shown = show_first ? email.substr(0, 1) : std::string_view();
  return std::string(shown) + "***" + std::string(email.substr(at));
}

}  // namespace authd
