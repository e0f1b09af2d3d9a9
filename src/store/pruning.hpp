// Housekeeping's removal of what can no longer matter (interface.md 8.2),
// table by table: expired sessions, tokens, sign-in mails, pending sign-ups
// and passkey challenges; throttling events older than the longest window;
// mail sent before the sent-mail horizon; audit events from before the
// audit horizon with their webhook deliveries, and ended repeat counts; the
// OpenID provider's expired waiting requests, access tokens,
// client_credentials tokens and refresh token families, codes past their
// keep_until and signing keys past their remove_after; idle or expired
// console sessions; expired upstream flows.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>

#include "core/time.hpp"
#include "store/prune_limit.hpp"
#include "store/transaction.hpp"

namespace authd {

struct PruneHorizons {
  Millis now = 0;        // what expired at or before it goes
  Millis throttle = 0;   // throttling events at or before it
  Millis sent_mail = 0;  // mail sent at or before it
  Millis audit = 0;      // audit events from before it
};

// One table's step: removes at most kRowsPrunedPerTable of its rows (those
// another transaction holds are skipped on PostgreSQL); returns how many. A
// step that removed as many may have left some.
using PruneStep = std::int64_t (*)(Transaction&, const PruneHorizons&);

inline constexpr auto kPruneSteps = std::to_array<PruneStep>({
    [](Transaction& tx, const PruneHorizons& h) { return tx.sessions().prune(h.now); },
    [](Transaction& tx, const PruneHorizons& h) { return tx.reset_tokens().prune(h.now); },
    [](Transaction& tx, const PruneHorizons& h) { return tx.email_signins().prune(h.now); },
    [](Transaction& tx, const PruneHorizons& h) { return tx.signups().prune(h.now); },
    [](Transaction& tx, const PruneHorizons& h) { return tx.passkeys().prune(h.now); },
    [](Transaction& tx, const PruneHorizons& h) { return tx.throttle().prune(h.throttle); },
    [](Transaction& tx, const PruneHorizons& h) { return tx.outbox().prune(h.sent_mail); },
    [](Transaction& tx, const PruneHorizons& h) { return tx.events().prune(h.audit); },
    [](Transaction& tx, const PruneHorizons& h) { return tx.events().prune_repeats(h.now); },
    [](Transaction& tx, const PruneHorizons& h) {
      return tx.authorization_requests().prune(h.now);
    },
    [](Transaction& tx, const PruneHorizons& h) { return tx.authorization_codes().prune(h.now); },
    [](Transaction& tx, const PruneHorizons& h) { return tx.access_tokens().prune(h.now); },
    [](Transaction& tx, const PruneHorizons& h) { return tx.refresh_tokens().prune(h.now); },
    [](Transaction& tx, const PruneHorizons& h) { return tx.signing_keys().prune(h.now); },
    [](Transaction& tx, const PruneHorizons& h) { return tx.client_tokens().prune(h.now); },
    [](Transaction& tx, const PruneHorizons& h) { return tx.operators().prune(h.now); },
    [](Transaction& tx, const PruneHorizons& h) { return tx.upstream_flows().prune(h.now); },
});

// One pass of the pruner (interface.md 8.2): transactions one after
// another, each running the steps whose last run gave a full batch (every
// step, the first time), until none did.
class PrunePass {
 public:
  explicit PrunePass(const PruneHorizons& horizons) : horizons_(horizons) { pending_.fill(true); }

  bool done() const { return std::find(pending_.begin(), pending_.end(), true) == pending_.end(); }

  // Runs the pending steps in `tx`; the rows removed. Only assigns, so that
  // a transaction's work may run again after a failed attempt.
  std::int64_t run(Transaction& tx) {
    std::int64_t removed = 0;
    for (std::size_t i = 0; i < kPruneSteps.size(); ++i) {
      full_[i] = false;
      if (!pending_[i]) continue;
      const std::int64_t rows = kPruneSteps[i](tx, horizons_);
      removed += rows;
      full_[i] = rows >= kRowsPrunedPerTable;
    }
    return removed;
  }

  // After run()'s transaction committed: the steps that gave a full batch
  // are the next transaction's.
  void committed() { pending_ = full_; }

 private:
  PruneHorizons horizons_;
  std::array<bool, kPruneSteps.size()> pending_{};
  std::array<bool, kPruneSteps.size()> full_{};
};

}  // namespace authd
