// `authd oidc rotate-keys [--now]` (interface.md 17.12): makes the next pair
// of signing keys (RS256 and ES256). They are published in the JWKS at once
// and sign after --oidc-key-prepublish, so that relying parties know them
// before they see a signature; with --now they sign at once and the
// current keys are retired (a key believed compromised: what it signed is
// refused once it leaves the JWKS). Prints the new key ids as one JSON
// line; the keys themselves are never printed. Exit status 1 when the
// database failed, 2 without a secret key to seal them with.
#include <iostream>
#include <memory>

#include <nlohmann/json.hpp>

#include "auth/oidc/signing_keys.hpp"
#include "cli/commands.hpp"
#include "cli/secret_keys.hpp"
#include "config/option_groups.hpp"
#include "store/backends/open_store.hpp"

namespace authd {
namespace {

int rotate_keys(const Config& config, bool now_signs) {
  SecretKeys keys = open_secret_keys(config);
  if (!keys.ok) return 2;
  if (!keys.sealer) {
    std::cerr << "error: --secret-key-file: the signing keys are sealed with it\n";
    return 2;
  }
  auto store = open_store(config.database, config.store_options());
  store->migrate();
  const OidcSettings& oidc = config.policy.oidc;
  RotationResult result =
      rotate_signing_keys(*store, *keys.sealer,
                          {.prepublish = oidc.key_prepublish,
                           .rotation = oidc.key_rotation,
                           .longest_token_ttl = std::max(oidc.id_token_ttl, oidc.access_token_ttl)},
                          now_signs, cli_event_source(config));
  if (!result.ok) {
    std::cerr << "error: the database failed; run the command again\n";
    return 1;
  }
  std::cout << nlohmann::json{{"kids", result.made},
                              {"retired", result.retired},
                              {"signsFrom", format_rfc3339(result.signs_from)}}
                   .dump()
            << std::endl;
  return 0;
}

}  // namespace

void add_oidc_commands(CommandRegistry& commands) {
  CLI::App& oidc =
      commands.add_group(commands.root(), "oidc", "The OpenID provider (interface.md 17)");
  auto now_signs = std::make_shared<bool>(false);
  commands.add(oidc, {.name = "rotate-keys",
                      .help = "Make the next signing keys: published at once, signing after "
                              "--oidc-key-prepublish (--now: at once, retiring the current keys)",
                      .options =
                          [now_signs](CLI::App& command, Config& config) {
                            add_database_options(command, config);
                            add_second_factor_options(command, config);
                            add_oidc_options(command, config);
                            command.add_flag(
                                "--now", *now_signs,
                                "Sign with the new keys at once and retire the current ones "
                                "(a key believed compromised)");
                          },
                      .run = [now_signs](const Config& c) { return rotate_keys(c, *now_signs); }});
}

}  // namespace authd
