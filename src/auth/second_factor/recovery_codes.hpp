// Recovery codes (interface.md 12.1): ten single-use codes, shown once,
// stored only as SHA-256 digests. Each is 80 bits from the CSPRNG written
// as 16 base32 letters in groups of four ("k7qm-2xvd-..."): too many to
// guess online, and too many to search for offline from a digest, as with
// tokens (interface.md 5).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "crypto/random.hpp"

namespace authd {

inline constexpr std::size_t kRecoveryCodeCount = 10;

std::vector<std::string> new_recovery_codes();

// The digest a code is stored under. Letter case, hyphens and spaces do not
// matter (what a user types from paper); anything else that is not a code
// of the right length is nothing.
std::optional<Sha256Digest> recovery_code_digest(std::string_view typed);

// The digests of codes new_recovery_codes made.
std::vector<Sha256Digest> recovery_code_digests(const std::vector<std::string>& codes);

}  // namespace authd
