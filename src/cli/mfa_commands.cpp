// `authd mfa reseal` (interface.md 12.2.3): during a key rotation, seals
// every stored secret anew with the current key (--secret-key-file): the
// TOTP secrets and the upstream tokens kept on links (18.5), opening each
// with whichever of the current and the previous key
// (--previous-secret-key-file) sealed it. Prints the counts; exit 1 when a
// secret opens with neither key (it is left as it is).
#include <functional>
#include <iostream>
#include <vector>

#include "auth/second_factor/second_factor.hpp"
#include "auth/upstream/kept_tokens.hpp"
#include "cli/commands.hpp"
#include "cli/secret_keys.hpp"
#include "config/option_groups.hpp"
#include "core/wipe.hpp"
#include "store/backends/open_store.hpp"

namespace authd {
namespace {

constexpr int kBatch = 100;

struct Sealed {
  std::string owner;  // the id the seal's context names
  std::string sealed;
};

// One kind of sealed secret, read in batches in its owners' id order.
struct SealedKind {
  // The batch after `after` sealed with another key than `key_id`.
  std::function<std::vector<Sealed>(Transaction&, const std::string& key_id,
                                    const std::string& after)>
      batch_after;
  std::function<std::string(const std::string& owner)> context;
  // Stores `sealed` in place of `was`; false when it changed meanwhile.
  std::function<bool(Transaction&, const Sealed& was, const std::string& sealed)> replace;
};

struct ResealCounts {
  long resealed = 0;
  long unreadable = 0;
};

// False when the database failed.
bool reseal_kind(Store& store, const SecretSealer& sealer, const SealedKind& kind,
                 ResealCounts& counts) {
  std::string after;
  bool more = true;
  while (more) {
    // A transaction may run again: each run counts anew.
    ResealCounts batch_counts;
    std::string batch_last;
    auto batch = [&](Transaction& tx) {
      batch_counts = {};
      batch_last = after;
      std::vector<Sealed> items = kind.batch_after(tx, sealer.current_key_id(), after);
      more = static_cast<int>(items.size()) == kBatch;
      for (const Sealed& item : items) {
        batch_last = item.owner;
        auto opened = sealer.open(item.sealed, kind.context(item.owner));
        if (!opened) {
          ++batch_counts.unreadable;
          continue;
        }
        WipeOnExit wipe_plaintext(opened->plaintext);  // a failed write throws
        // False when stored anew meanwhile: that one is the current key's.
        if (kind.replace(tx, item, sealer.seal(opened->plaintext, kind.context(item.owner))))
          ++batch_counts.resealed;
      }
    };
    if (store.run(Store::Mode::write, batch) != StoreStatus::ok) return false;
    counts.resealed += batch_counts.resealed;
    counts.unreadable += batch_counts.unreadable;
    after = batch_last;
  }
  return true;
}

SealedKind totp_secrets() {
  return {[](Transaction& tx, const std::string& key_id, const std::string& after) {
            std::vector<Sealed> items;
            for (const TotpFactorRecord& factor :
                 tx.second_factors().sealed_with_other_key(key_id, after, kBatch))
              items.push_back({factor.user_id, factor.sealed_secret});
            return items;
          },
          [](const std::string& user_id) { return totp_seal_context(user_id); },
          [](Transaction& tx, const Sealed& was, const std::string& sealed) {
            return tx.second_factors().reseal_totp(was.owner, was.sealed, sealed);
          }};
}

SealedKind kept_upstream_tokens() {
  return {[](Transaction& tx, const std::string& key_id, const std::string& after) {
            std::vector<Sealed> items;
            for (SealedKeptTokens& link :
                 tx.identities().kept_tokens_sealed_with_other_key(key_id, after, kBatch))
              items.push_back({std::move(link.identity_id), std::move(link.sealed)});
            return items;
          },
          [](const std::string& identity_id) { return kept_tokens_seal_context(identity_id); },
          [](Transaction& tx, const Sealed& was, const std::string& sealed) {
            return tx.identities().reseal_kept_tokens(was.owner, was.sealed, sealed);
          }};
}

int reseal(const Config& config) {
  SecretKeys keys = open_secret_keys(config);
  if (!keys.ok) return 2;
  if (!keys.sealer) {
    std::cerr << "error: --secret-key-file: required on PostgreSQL\n";
    return 2;
  }
  auto store = open_store(config.database, config.store_options());
  store->migrate();
  ResealCounts counts;
  for (const SealedKind& kind : {totp_secrets(), kept_upstream_tokens()}) {
    if (!reseal_kind(*store, *keys.sealer, kind, counts)) {
      std::cerr << "error: the database failed; run the command again\n";
      return 1;
    }
  }
  std::cout << "resealed " << counts.resealed << ", unreadable " << counts.unreadable << "\n";
  return counts.unreadable == 0 ? 0 : 1;
}

}  // namespace

void add_mfa_commands(CommandRegistry& commands) {
  CLI::App& mfa = commands.add_group(commands.root(), "mfa", "Second factors (interface.md 12)");
  commands.add(mfa, {.name = "reseal",
                     .help = "Seal every TOTP secret and kept upstream token anew with "
                             "--secret-key-file (after a key rotation)",
                     .options =
                         [](CLI::App& command, Config& config) {
                           add_database_options(command, config);
                           add_second_factor_options(command, config);
                         },
                     .run = reseal});
}

}  // namespace authd
