// Erasing an account (interface.md 10.4 DELETE /admin/users/{id}, `authd
// user delete`): the account and every row that refers to it or holds its
// e-mail in clear go in one transaction: sessions (revoked ones too),
// reset tokens, mail queued or sent, a pending sign-up of the address, the
// OpenID provider's consents, codes and access tokens (interface.md 17), the
// links of upstream identity providers (18.4), and
// the address's throttling counters. Afterwards the e-mail is unknown
// everywhere and free for a new account. The client-address counters stay:
// they belong to the address the attempts came from, not to the account.
#pragma once

#include "store/transaction.hpp"

namespace authd {

void erase_account(Transaction& tx, const UserRecord& user);

}  // namespace authd
