// The secret key of interface.md 12.2, as `authd serve` and `authd mfa
// reseal` find it: --secret-key-file, or beside a SQLite database a key
// file created 0600 on first start; with --previous-secret-key-file during
// a rotation.
#pragma once

#include <optional>

#include "config/config.hpp"
#include "crypto/sealed_secrets.hpp"

namespace authd {

struct SecretKeys {
  bool ok = true;                      // false: a configured key file could not be read (logged)
  std::optional<SecretSealer> sealer;  // none: no key (PostgreSQL without --secret-key-file)
};

SecretKeys open_secret_keys(const Config& config);

}  // namespace authd
