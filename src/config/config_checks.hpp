// The settings of `authd serve` checked against each other and against what
// they protect, before anything starts: an SMTP relay that would receive
// reset links or credentials in clear, a mail lease shorter than a delivery,
// a remote database without verified TLS, proxies trusted to name any
// client, argon2id below OWASP's minimum. Pure (no socket, no file), so that
// each rule has a unit test (tests/unit/config_checks_test.cpp); cli/serve.cpp
// logs each finding as its event with its fields, and any error stops the
// start (exit 2).
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "config/config.hpp"

namespace authd {

struct ConfigFinding {
  enum class Severity { error, warning };
  Severity severity = Severity::error;
  std::string event;      // the log line's event: "bad_configuration", ...
  nlohmann::json fields;  // its fields: an error's say which option and why
};

// Every finding about `config`, errors and warnings, in the order they are
// logged.
std::vector<ConfigFinding> check_config(const Config& config);

}  // namespace authd
