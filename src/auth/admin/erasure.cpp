#include "auth/admin/erasure.hpp"

#include "auth/login/throttle.hpp"
#include "auth/mail_flows/mailed_links.hpp"
#include "auth/oidc/user_tokens.hpp"

namespace authd {

void erase_account(Transaction& tx, const UserRecord& user) {
  tx.sessions().delete_of_user(user.id);
  void_mailed_links(tx, user.id);
  tx.outbox().remove_for(user.id, user.email);
  tx.signups().remove_of_email(user.email);
  tx.second_factors().remove_all(user.id);
  tx.passkeys().remove_all_of(user.id);
  tx.identities().remove_all_of(user.id);  // interface.md 18.4: erasure removes links
  // The OpenID provider's grants (interface.md 17.5-17.9): the store's
  // foreign keys refuse the user's removal while one is left.
  tx.consents().delete_of_user(user.id);
  tx.authorization_codes().delete_of_user(user.id);
  revoke_oauth_tokens_of_user(tx, user.id);
  tx.throttle().delete_events(login_email_key(user.email));
  tx.events().forget_repeat(login_email_key(user.email));
  tx.throttle().delete_events(reset_mail_key(user.email));
  tx.throttle().delete_events(signup_mail_key(user.email));
  tx.throttle().delete_events(signin_mail_key(user.email));
  tx.users().remove(user.id);
}

}  // namespace authd
