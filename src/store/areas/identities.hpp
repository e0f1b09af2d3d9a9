// The identities area (interface.md 18.3, 18.4): links from an upstream
// identity provider's account (its configured name and the subject it
// gives) to one authd account. A (provider, subject) is linked to one
// account at most: the unique key decides a race between two links of it,
// on one instance or several. Deleting an account's row takes its links.
// A link may hold the provider's tokens (18.5), sealed by the caller
// (crypto/sealed_secrets.hpp): they live and go with the link's row.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/time.hpp"

namespace authd {

struct IdentityRecord {
  std::string id;  // public: a random UUID (as a session's public id), never derived
  std::string user_id;
  std::string provider;  // the configured name
  std::string subject;   // the upstream's `sub` (GitHub: `id`)
  std::string email;     // what the upstream said at link time, canonical; "" when none
  Millis created_at = 0;
  std::optional<Millis> last_used_at{};  // the last sign-in through it
};

// The provider's tokens kept on a link (interface.md 18.5): one sealed
// text, never the tokens in clear.
struct KeptTokensRecord {
  std::string sealed;  // SecretSealer::seal's "v1.<key id>.<base64>"
  Millis stored_at = 0;
};

// A link's kept tokens as sealed, for sealing anew (authd mfa reseal).
struct SealedKeptTokens {
  std::string identity_id;
  std::string sealed;
};

class IdentityStore {
 public:
  virtual ~IdentityStore() = default;

  // False, and nothing written, when (provider, subject) or the id is
  // linked already (to anyone), even by a transaction that commits while
  // this one waits for it.
  virtual bool insert(const IdentityRecord& identity) = 0;
  virtual std::optional<IdentityRecord> by_subject(std::string_view provider,
                                                   std::string_view subject) = 0;
  virtual std::optional<IdentityRecord> by_id(std::string_view id) = 0;
  // The account's links, oldest first.
  virtual std::vector<IdentityRecord> of_user(std::string_view user_id) = 0;
  virtual std::int64_t count_of(std::string_view user_id) = 0;
  // A sign-in through it.
  virtual void record_use(std::string_view id, Millis at) = 0;
  // Replaces the tokens kept on the link. False when no link has this id.
  virtual bool keep_tokens(std::string_view id, const KeptTokensRecord& tokens) = 0;
  // Drops the tokens kept on the link; false when it had none (or no such link).
  virtual bool forget_tokens(std::string_view id) = 0;
  // Nothing when no link has this id or it keeps no tokens.
  virtual std::optional<KeptTokensRecord> kept_tokens(std::string_view id) = 0;
  // The links whose kept tokens are sealed with another key than `key_id`,
  // after `after_id` in id order, at most `limit` (authd mfa reseal).
  virtual std::vector<SealedKeptTokens> kept_tokens_sealed_with_other_key(std::string_view key_id,
                                                                          std::string_view after_id,
                                                                          int limit) = 0;
  // Replaces the sealed text `was` with `sealed` (the same tokens sealed
  // anew); false when the link keeps `was` no longer (a sign-in kept new
  // tokens meanwhile, or dropped them).
  virtual bool reseal_kept_tokens(std::string_view id, std::string_view was,
                                  std::string_view sealed) = 0;
  // Drops the tokens kept before `kept_before` on links whose provider is
  // not in `keeping` (interface.md 18.5.1: none are kept unless their
  // provider is configured to keep them), at most `limit` links, in id
  // order; on PostgreSQL a link another transaction holds is skipped, not
  // waited for. The number of links that kept tokens and keep none now.
  virtual std::int64_t forget_tokens_not_kept_by(std::span<const std::string> keeping,
                                                 Millis kept_before, int limit) = 0;
  // False when no link has this id (its kept tokens go with it).
  virtual bool remove(std::string_view id) = 0;
  virtual std::int64_t remove_all_of(std::string_view user_id) = 0;
};

}  // namespace authd
