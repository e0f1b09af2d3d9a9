#include "crypto/legacy_hash.hpp"

#include "crypto/hash_kind.hpp"

namespace authd {

std::optional<std::string> imported_hash_problem(std::string_view hash) {
  if (password_hash_kind(hash)) return std::nullopt;
  return "passwordHash: not a hash of a supported format";
}

}  // namespace authd
