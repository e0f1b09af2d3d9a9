// The [[upstream]] tables of the configuration file (interface.md 18.1):
// the one kind of setting that flags cannot express, a list of providers.
// Keys are named as the flags are (lower case, '-'); every error names the
// table and the key.
#pragma once

#include <string>
#include <vector>

#include "upstream/provider.hpp"

namespace authd {

// The providers of the file at `path` (none when it has no [[upstream]]).
// Throws ConfigFileError.
std::vector<UpstreamProvider> read_upstream_tables(const std::string& path);

// Reads each provider's client-secret-file (authd serve, at start). Throws
// std::runtime_error naming the provider and the file, never its content.
void load_upstream_secrets(std::vector<UpstreamProvider>& providers);

// The tables as `authd config` shows them, the secret file redacted as
// every secret-named key is.
std::string upstream_tables_text(const std::vector<UpstreamProvider>& providers);

}  // namespace authd
