#include "crypto/legacy_hash.hpp"

#include "crypto/legacy_hash_parse.hpp"
#include "crypto/legacy_hash_verify.hpp"

namespace authd {

std::optional<std::string> imported_hash_problem(std::string_view hash) {
  HashReading reading = read_password_hash(hash);
  std::optional<std::string> problem =
      reading.parsed ? cost_problem(reading.parsed->cost) : std::optional(reading.problem);
  if (!problem) return std::nullopt;
  return "passwordHash: " + *problem;
}

bool legacy_hash_matches(std::string_view password, std::string_view stored) {
  HashReading reading = read_password_hash(stored);
  if (!reading.parsed || cost_problem(reading.parsed->cost)) return false;
  return parsed_hash_matches(*reading.parsed, stored, password);
}

std::optional<std::string> legacy_hash_of_kind(std::string_view kind, std::string_view password) {
  std::optional<HashCost> cost = read_hash_kind(kind);
  if (!cost || cost_problem(*cost)) return std::nullopt;
  std::optional<std::string> made = make_hash(*cost, password);
  // What is measured must be of the kind asked for, and verifiable.
  if (!made) return std::nullopt;
  HashReading reading = read_password_hash(*made);
  if (!reading.parsed || reading.parsed->kind != kind) return std::nullopt;
  return made;
}

}  // namespace authd
