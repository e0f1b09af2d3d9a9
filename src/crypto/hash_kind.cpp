#include "crypto/hash_kind.hpp"

#include <charconv>

#include "crypto/legacy_hash_parse.hpp"

namespace authd {
namespace {

// A run of 1 to 10 digits at the start of `text` (no sign, no leading
// space), consumed; nothing otherwise.
std::optional<unsigned long> take_number(std::string_view& text) {
  std::size_t length = 0;
  while (length < text.size() && text[length] >= '0' && text[length] <= '9') ++length;
  if (length == 0 || length > 10) return std::nullopt;
  unsigned long value = 0;
  std::from_chars(text.data(), text.data() + length, value);
  text.remove_prefix(length);
  return value;
}

bool take(std::string_view& text, std::string_view expected) {
  if (text.substr(0, expected.size()) != expected) return false;
  text.remove_prefix(expected.size());
  return true;
}

// Parses "$argon2X$v=N$m=N,t=N,p=N" at the start of `text`; on success
// `text` is left at what follows (the "$" before the salt, or the end).
std::optional<Argon2Kind> take_argon2_kind(std::string_view& text) {
  Argon2Kind kind;
  for (std::string_view algorithm : {"argon2id", "argon2i", "argon2d"}) {
    std::string_view rest = text;
    if (take(rest, "$") && take(rest, algorithm) && take(rest, "$")) {
      kind.algorithm = std::string(algorithm);
      text = rest;
      break;
    }
  }
  if (kind.algorithm.empty()) return std::nullopt;
  std::optional<unsigned long> v, m, t, p;
  if (!take(text, "v=") || !(v = take_number(text)) || !take(text, "$m=") ||
      !(m = take_number(text)) || !take(text, ",t=") || !(t = take_number(text)) ||
      !take(text, ",p=") || !(p = take_number(text)))
    return std::nullopt;
  kind.version = *v;
  kind.memory_kib = *m;
  kind.iterations = *t;
  kind.lanes = *p;
  return kind;
}

}  // namespace

std::optional<std::string> password_hash_kind(std::string_view phc) {
  if (!phc.starts_with("$argon2")) {
    // The formats of interface.md 10.5, which must be well-formed throughout.
    HashReading reading = read_password_hash(phc);
    if (!reading.parsed) return std::nullopt;
    return std::move(reading.parsed->kind);
  }
  std::optional<Argon2Kind> parsed = parse_argon2_hash(phc);
  if (!parsed) return std::nullopt;
  // Lanes change nothing of the cost (a worker verifies every lane on its
  // own thread): hashes that differ only in them are one kind.
  return "$" + parsed->algorithm + "$v=" + std::to_string(parsed->version) +
         "$m=" + std::to_string(parsed->memory_kib) + ",t=" + std::to_string(parsed->iterations) +
         ",p=1";
}

std::optional<Argon2Kind> parse_argon2_hash(std::string_view phc) {
  std::string_view rest = phc;
  std::optional<Argon2Kind> parsed = take_argon2_kind(rest);
  // The salt and digest follow; a string that ends here is no hash.
  if (!parsed || rest.empty() || rest.front() != '$') return std::nullopt;
  return parsed;
}

std::optional<Argon2Kind> parse_argon2_kind(std::string_view kind) {
  std::string_view rest = kind;
  std::optional<Argon2Kind> parsed = take_argon2_kind(rest);
  if (!parsed || !rest.empty()) return std::nullopt;
  return parsed;
}

}  // namespace authd
