// The upstream flows area (interface.md 18.2): a sign-in or a link through
// an upstream provider, waiting for the browser to come back to the
// callback. Only digests are kept: of the `state` sent through the
// upstream, and of the binder, the secret of the HttpOnly cookie that ties
// the flow to the browser that started it (the PKCE verifier and the nonce
// are derived from the binder, upstream/flows.hpp, so they are not stored
// either). Single use: a row is taken once, then kept, used, until it
// expires, so that a replayed state is recognised as one.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "store/records.hpp"

namespace authd {

struct UpstreamFlowRecord {
  Sha256Digest state_digest{};
  Sha256Digest binder_digest{};
  std::string provider;
  std::string purpose;      // "signin" or "link"
  std::string user_id;      // a link's account; "" for a sign-in
  std::string request_id;   // the waiting authorization request (17.5); "" when none
  std::string return_path;  // relative to the public URL; "" when none
  Millis created_at = 0;
  Millis expires_at = 0;
  std::optional<Millis> used_at;
};

// A sign-in whose upstream proved the first factor, waiting for the
// account's second factor (interface.md 18.2.5, migration 20): the same
// row, found by its binder's digest.
struct AwaitedSecondFactor {
  UpstreamFlowRecord flow;
  std::string user_id;  // the account the callback decided
  Millis until = 0;     // the end of the wait
  int wrong_tries = 0;
};

class UpstreamFlowStore {
 public:
  virtual ~UpstreamFlowStore() = default;

  virtual void insert(const UpstreamFlowRecord& record) = 0;
  // Marks the flow of `state_digest` used at `now` and returns it as it
  // was before (used_at then tells a replay); nothing when unknown. Of two
  // concurrent takes one sees it unused.
  virtual std::optional<UpstreamFlowRecord> take(const Sha256Digest& state_digest, Millis now) = 0;
  // The taken flow of `state_digest` now waits for the second factor of
  // `user_id` until `until`.
  virtual void await_second_factor(const Sha256Digest& state_digest, const std::string& user_id,
                                   Millis until) = 0;
  // The flow waiting for a second factor whose binder has this digest,
  // locked for the transaction; nothing when none waits (never, or ended).
  virtual std::optional<AwaitedSecondFactor> awaiting(const Sha256Digest& binder_digest) = 0;
  // One more wrong try of the wait; returns the count now.
  virtual int count_wrong_try(const Sha256Digest& state_digest) = 0;
  // The wait ends (the factor passed, or the flow is void): the flow is
  // found no more.
  virtual void end_wait(const Sha256Digest& state_digest) = 0;
  // Removes the flows expired at `now` (and no longer waiting); returns the
  // rows removed.
  virtual std::int64_t prune(Millis now) = 0;
};

}  // namespace authd
