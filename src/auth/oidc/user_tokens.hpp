// interface.md 17.10: a password change, a reset, an administrator's new
// password, disabling and erasing an account end the user's OAuth access
// and refresh tokens, as they end sessions (an authd session's own end does
// not: offline_access outlives it).
#pragma once

#include <cstdint>
#include <string_view>

#include "store/transaction.hpp"

namespace authd {

inline std::int64_t revoke_oauth_tokens_of_user(Transaction& tx, std::string_view user_id) {
  // The refresh tokens first: a rotation that committed meanwhile has its
  // access token seen by the access tokens' revocation that follows
  // (store/postgres/refresh_tokens.cpp).
  std::int64_t revoked = tx.refresh_tokens().revoke_of_user(user_id);
  return revoked + tx.access_tokens().revoke_of_user(user_id);
}

}  // namespace authd
