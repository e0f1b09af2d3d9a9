// SQLite's identities area (store/areas/identities.hpp), in a header of
// its own: transaction.hpp holds it as a member.
#pragma once

#include "store/areas/identities.hpp"

namespace authd::sqlite {

class Connection;

class Identities final : public IdentityStore {
 public:
  explicit Identities(Connection& db) : db_(db) {}
  bool insert(const IdentityRecord& identity) override;
  std::optional<IdentityRecord> by_subject(std::string_view provider,
                                           std::string_view subject) override;
  std::optional<IdentityRecord> by_id(std::string_view id) override;
  std::vector<IdentityRecord> of_user(std::string_view user_id) override;
  std::int64_t count_of(std::string_view user_id) override;
  void record_use(std::string_view id, Millis at) override;
  bool keep_tokens(std::string_view id, const KeptTokensRecord& tokens) override;
  bool forget_tokens(std::string_view id) override;
  std::optional<KeptTokensRecord> kept_tokens(std::string_view id) override;
  std::vector<SealedKeptTokens> kept_tokens_sealed_with_other_key(std::string_view key_id,
                                                                  std::string_view after_id,
                                                                  int limit) override;
  bool reseal_kept_tokens(std::string_view id, std::string_view was,
                          std::string_view sealed) override;
  std::int64_t forget_tokens_not_kept_by(std::span<const std::string> keeping, Millis kept_before,
                                         int limit) override;
  bool remove(std::string_view id) override;
  std::int64_t remove_all_of(std::string_view user_id) override;

 private:
  Connection& db_;
};

}  // namespace authd::sqlite
