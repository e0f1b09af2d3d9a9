#include "crypto/legacy_hash_parse.hpp"

#include "crypto/legacy_hash_formats.hpp"
#include "crypto/legacy_hash_text.hpp"

namespace authd {
namespace {

// Longer than any hash of interface.md 10.5 with sane salts (a passlib
// pbkdf2-sha512 string with a 64-byte salt is under 250 characters).
constexpr std::size_t kMaxHashLength = 1024;

enum class Family { argon2, bcrypt, scrypt, pbkdf2, sha_crypt, unknown };

Family family_of(std::string_view text) {
  for (std::string_view prefix : {"$argon2id$", "$argon2i$", "$argon2d$"}) {
    if (text.starts_with(prefix)) return Family::argon2;
  }
  if (text.starts_with("$2")) return Family::bcrypt;
  if (text.starts_with("$7$") || text.starts_with("$scrypt$")) return Family::scrypt;
  for (std::string_view prefix :
       {"pbkdf2_sha256$", "pbkdf2_sha1$", "$pbkdf2-sha256$", "$pbkdf2-sha512$"}) {
    if (text.starts_with(prefix)) return Family::pbkdf2;
  }
  if (text.starts_with("$5$") || text.starts_with("$6$")) return Family::sha_crypt;
  return Family::unknown;
}

bool read_family(Family family, std::string_view hash, ParsedHash& out, std::string& problem) {
  switch (family) {
    case Family::argon2:
      return legacy_hash::read_argon2(hash, out, problem);
    case Family::bcrypt:
      return legacy_hash::read_bcrypt(hash, out, problem);
    case Family::scrypt:
      return legacy_hash::read_scrypt(hash, out, problem);
    case Family::pbkdf2:
      return legacy_hash::read_pbkdf2(hash, out, problem);
    case Family::sha_crypt:
      return legacy_hash::read_sha_crypt(hash, out, problem);
    case Family::unknown:
      break;
  }
  return false;
}

// The cost of a kind's text, which must be all of it.
std::optional<HashCost> take_whole_kind(Family family, std::string_view kind) {
  std::string ignored;
  std::optional<HashCost> cost;
  switch (family) {
    case Family::argon2:
      return legacy_hash::read_argon2_kind(kind, ignored);
    case Family::bcrypt:
      cost = legacy_hash::take_bcrypt_cost(kind, ignored);
      break;
    case Family::scrypt:
      cost = legacy_hash::take_scrypt_cost(kind, ignored);
      break;
    case Family::pbkdf2:
      cost = legacy_hash::take_pbkdf2_cost(kind, ignored);
      break;
    case Family::sha_crypt:
      cost = legacy_hash::take_sha_crypt_cost(kind, ignored);
      break;
    case Family::unknown:
      break;
  }
  if (!kind.empty()) return std::nullopt;
  return cost;
}

}  // namespace

HashReading read_password_hash(std::string_view hash) {
  HashReading reading;
  if (hash.empty()) {
    reading.problem = "hash is empty";
  } else if (hash.size() > kMaxHashLength) {
    reading.problem = "hash is longer than 1024 characters";
  } else if (!legacy_hash::printable_ascii(hash)) {
    reading.problem = "hash has characters no supported format has (space, control or non-ASCII)";
  }
  if (!reading.problem.empty()) return reading;
  Family family = family_of(hash);
  ParsedHash parsed;
  if (!read_family(family, hash, parsed, reading.problem)) {
    if (reading.problem.empty())
      reading.problem =
          "hash is not of a supported format (argon2, bcrypt, scrypt, PBKDF2, SHA-crypt)";
    return reading;
  }
  parsed.kind = hash_kind_text(parsed.cost);
  reading.parsed = std::move(parsed);
  return reading;
}

std::optional<HashCost> read_hash_kind(std::string_view kind) {
  std::optional<HashCost> cost = take_whole_kind(family_of(kind), kind);
  // One text per kind: "$5$rounds=5000", never "$5$" nor "$6$rounds=05000".
  if (!cost || hash_kind_text(*cost) != kind) return std::nullopt;
  return cost;
}

}  // namespace authd
