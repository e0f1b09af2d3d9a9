#include "auth/second_factor/recovery_codes.hpp"

#include <sodium.h>

#include "core/wipe.hpp"

namespace authd {
namespace {

constexpr std::string_view kAlphabet = "abcdefghijklmnopqrstuvwxyz234567";  // RFC 4648 base32
constexpr std::size_t kLetters = 16;                                        // 16 x 5 = 80 bits

}  // namespace

std::vector<std::string> new_recovery_codes() {
  std::vector<std::string> codes;
  codes.reserve(kRecoveryCodeCount);
  for (std::size_t i = 0; i < kRecoveryCodeCount; ++i) {
    std::string code;
    for (std::size_t letter = 0; letter < kLetters; ++letter) {
      if (letter > 0 && letter % 4 == 0) code += '-';
      code += kAlphabet[randombytes_uniform(static_cast<std::uint32_t>(kAlphabet.size()))];
    }
    codes.push_back(std::move(code));
  }
  return codes;
}

std::optional<Sha256Digest> recovery_code_digest(std::string_view typed) {
  std::string letters;
  WipeOnExit wipe_letters(letters);
  for (char c : typed) {
    if (c == '-' || c == ' ') continue;
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    if (kAlphabet.find(c) == std::string_view::npos || letters.size() == kLetters)
      return std::nullopt;
    letters += c;
  }
  if (letters.size() != kLetters) return std::nullopt;
  return sha256(letters);
}

std::vector<Sha256Digest> recovery_code_digests(const std::vector<std::string>& codes) {
  std::vector<Sha256Digest> digests;
  digests.reserve(codes.size());
  for (const std::string& code : codes) digests.push_back(*recovery_code_digest(code));
  return digests;
}

}  // namespace authd
