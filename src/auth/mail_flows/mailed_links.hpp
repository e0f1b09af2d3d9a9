// What was mailed to an account and still works: its password-reset token
// (interface.md 7.2) and its sign-in mail's link and code (19.2). Every
// change that must void one voids both: a new password by any means,
// disabling, a new address, erasure.
#pragma once

#include <string_view>

#include "store/transaction.hpp"

namespace authd {

inline void void_mailed_links(Transaction& tx, std::string_view user_id) {
  tx.reset_tokens().delete_of_user(user_id);
  tx.email_signins().delete_of_user(user_id);
}

}  // namespace authd
