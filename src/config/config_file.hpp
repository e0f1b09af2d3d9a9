// The TOML configuration file (--config FILE or AUTHD_CONFIG) and the
// effective configuration printed by `authd config`.
//
// Keys are the long flag names without the leading dashes, flat, one per
// flag: `listen = "0.0.0.0:8080"`, `argon2-memory-kib = 19456`,
// `cors-origins = ["https://app.example"]`. No tables: one name for one
// setting everywhere (flag, key, and AUTHD_ + the key in upper case with
// `_` for `-`), so that docs, logs and `authd config` speak one language.
// The one exception is the list of upstream providers, [[upstream]]
// (interface.md 18.1), which no flag can say: config/upstream_config.hpp.
//
// Precedence: flags > environment > file > defaults. The file's values are
// applied after CLI11 has read the flags and the environment, to the
// options that neither set, through the options themselves: a file value
// is checked by exactly the same rules as the same value given as a flag.
#pragma once

#include <stdexcept>
#include <string>
#include <string_view>

namespace CLI {
class App;
}

namespace authd {

// A configuration file that cannot be used; the message names the file and
// the key (or the line of a syntax error).
class ConfigFileError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Reads `path` and applies its values to the options of `command` that were
// not set by a flag or an environment variable. `known` defines the valid
// keys (authd serve's options): a key it does not have, or a value of the
// wrong TOML type, is an error; a valid key that `command` does not take
// (`listen` for `authd user add`) is ignored, so that one file serves every
// command. Throws ConfigFileError.
void apply_config_file(const std::string& path, const CLI::App& known, CLI::App& command);

// The effective configuration of `command` (flags, environment, file and
// defaults combined) as a TOML document that --config accepts, one key per
// option with its help as a comment. Secrets are redacted.
std::string effective_config(const CLI::App& command);

// True for keys whose value is a secret (their name contains "password" or
// "secret"): printed as "<redacted>".
bool is_secret_key(std::string_view key);

// The value with the password of a URL's user information
// (`postgresql://user:pass@host/db`) and any `password=` parameter
// (`?password=...`, `sslpassword=...`, libpq's `password=... host=...`)
// replaced by "<redacted>".
std::string redact_url_secrets(std::string_view value);

}  // namespace authd
