#include "cli/secret_keys.hpp"

#include <sys/stat.h>
#include <cerrno>

#include "core/log.hpp"

namespace authd {
namespace {

std::optional<SecretKey> read_key(const std::string& path, const char* option) {
  std::string problem;
  std::optional<SecretKey> key = read_secret_key_file(path, problem);
  if (!key) log::error("secret_key_unreadable", {{"option", option}, {"problem", problem}});
  return key;
}

}  // namespace

SecretKeys open_secret_keys(const Config& config) {
  SecretKeys keys;
  std::string path = config.secret_key_file;
  const char* option = "--secret-key-file";
  if (path.empty()) {
    path = config.default_secret_key_file();
    option = "the default key file beside the database";
    if (path.empty()) {
      // interface.md 17.2, 17.12: the provider's signing keys are sealed
      // with this key; without one it cannot start.
      if (config.policy.oidc.on) {
        log::error("bad_configuration",
                   {{"option", "--secret-key-file"},
                    {"reason",
                     "--oidc on seals its signing keys with the secret key: give "
                     "--secret-key-file"}});
        keys.ok = false;
        return keys;
      }
      // interface.md 18.5: kept upstream tokens are only ever sealed.
      for (const UpstreamProvider& p : config.upstreams) {
        if (!p.keep_tokens) continue;
        log::error("bad_configuration",
                   {{"option", "[[upstream]] keep-tokens"},
                    {"reason", "upstream provider " + p.name +
                                   " keeps its tokens sealed with the secret key: give "
                                   "--secret-key-file"}});
        keys.ok = false;
        return keys;
      }
      log::warn("second_factor_unavailable",
                {{"reason",
                  "no --secret-key-file: TOTP enrolment and logins with a second "
                  "factor answer 503"}});
      if (config.policy.email_signin)
        log::warn("email_signin_codes_unkeyed",
                  {{"reason",
                    "no --secret-key-file: the codes of sign-in mails are stored as unkeyed "
                    "digests, which a copy of the database can test guesses against"}});
      return keys;
    }
    struct stat info {};
    if (::stat(path.c_str(), &info) != 0 && errno == ENOENT) {
      // Of two processes starting at once, one links its key into place and
      // the other reads that one (EEXIST is not an error here).
      std::string problem;
      if (create_secret_key_file(path, problem))
        log::info("secret_key_created", {{"path", path}});
      else if (errno != EEXIST)
        log::warn("secret_key_not_created", {{"problem", problem}});
    }
  }
  std::optional<SecretKey> current = read_key(path, option);
  if (!current) {
    keys.ok = false;
    return keys;
  }
  std::optional<SecretKey> previous;
  if (!config.previous_secret_key_file.empty()) {
    previous = read_key(config.previous_secret_key_file, "--previous-secret-key-file");
    if (!previous) {
      keys.ok = false;
      return keys;
    }
  }
  // The key ids (never the keys) tell which key sealed a stored secret
  // (interface.md 12.2.3: is the rotation done?).
  log::info("secret_key", {{"key_id", current->id},
                           {"previous_key_id", previous ? previous->id : std::string()}});
  keys.sealer.emplace(*current, previous);
  return keys;
}

}  // namespace authd
