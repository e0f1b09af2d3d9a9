// Password hashes imported from other systems (interface.md 10.5).
// PLACEHOLDER until the legacy-hashes branch lands: accepts argon2 PHC
// strings only.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace authd {

// Why `hash` cannot be stored as an imported password hash, or nothing
// when it can: one of the formats of interface.md 10.5, well-formed, within
// the cost caps. The reason is short, names the format and the problem
// (e.g. "passwordHash: bcrypt cost 16 is over the cap of 15"), and never
// echoes any part of the hash.
std::optional<std::string> imported_hash_problem(std::string_view hash);

}  // namespace authd
