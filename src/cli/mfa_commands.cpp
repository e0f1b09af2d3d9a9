// `authd mfa reseal` (interface.md 12.2.3): during a key rotation, seals
// every stored TOTP secret anew with the current key (--secret-key-file),
// opening it with whichever of the current and the previous key
// (--previous-secret-key-file) sealed it. Prints the counts; exit 1 when a
// secret opens with neither key (it is left as it is).
#include <iostream>

#include "auth/second_factor/second_factor.hpp"
#include "cli/commands.hpp"
#include "cli/secret_keys.hpp"
#include "config/option_groups.hpp"
#include "core/wipe.hpp"
#include "store/backends/open_store.hpp"

namespace authd {
namespace {

constexpr int kBatch = 100;

int reseal(const Config& config) {
  SecretKeys keys = open_secret_keys(config);
  if (!keys.ok) return 2;
  if (!keys.sealer) {
    std::cerr << "error: --secret-key-file: required on PostgreSQL\n";
    return 2;
  }
  auto store = open_store(config.database, config.store_options());
  store->migrate();
  const SecretSealer& sealer = *keys.sealer;
  long resealed = 0;
  long unreadable = 0;
  std::string after;  // user ids in order: each batch after the last one seen
  bool more = true;
  while (more) {
    // A transaction may run again: each run counts anew.
    long batch_resealed = 0;
    long batch_unreadable = 0;
    std::string batch_last;
    auto batch = [&](Transaction& tx) {
      batch_resealed = batch_unreadable = 0;
      batch_last = after;
      std::vector<TotpFactorRecord> factors =
          tx.second_factors().sealed_with_other_key(sealer.current_key_id(), after, kBatch);
      more = static_cast<int>(factors.size()) == kBatch;
      for (const TotpFactorRecord& factor : factors) {
        batch_last = factor.user_id;
        auto opened = sealer.open(factor.sealed_secret, totp_seal_context(factor.user_id));
        if (!opened) {
          ++batch_unreadable;
          continue;
        }
        // False when enrolled again meanwhile: that secret is the current key's.
        bool resealed_now = tx.second_factors().reseal_totp(
            factor.user_id, factor.sealed_secret,
            sealer.seal(opened->plaintext, totp_seal_context(factor.user_id)));
        wipe(opened->plaintext);
        if (resealed_now) ++batch_resealed;
      }
    };
    if (store->run(Store::Mode::write, batch) != StoreStatus::ok) {
      std::cerr << "error: the database failed; run the command again\n";
      return 1;
    }
    resealed += batch_resealed;
    unreadable += batch_unreadable;
    after = batch_last;
  }
  std::cout << "resealed " << resealed << ", unreadable " << unreadable << "\n";
  return unreadable == 0 ? 0 : 1;
}

}  // namespace

void add_mfa_commands(CommandRegistry& commands) {
  CLI::App& mfa = commands.add_group(commands.root(), "mfa", "Second factors (interface.md 12)");
  commands.add(mfa, {.name = "reseal",
                     .help = "Seal every TOTP secret anew with --secret-key-file (after a key "
                             "rotation)",
                     .options =
                         [](CLI::App& command, Config& config) {
                           add_database_options(command, config);
                           add_second_factor_options(command, config);
                         },
                     .run = reseal});
}

}  // namespace authd
