#include "auth/second_factor/passkey_factor.hpp"

#include <sodium.h>

#include "crypto/random.hpp"
#include "store/transaction.hpp"

namespace authd {

PasskeyUse use_passkey(Transaction& tx, const webauthn::RelyingParty& rp,
                       const webauthn::AssertionResponse& response, const std::string* account,
                       Millis now) {
  PasskeyUse use;
  // Taken first, whatever follows: a response that names a challenge uses it.
  std::optional<std::string> expected = webauthn::challenge_of(response.client_data_json);
  if (expected && !tx.passkeys().take_challenge(sha256(*expected), ChallengePurpose::sign_in, now))
    expected.reset();
  const std::string credential_id = base64url(response.id);
  use.passkey = tx.passkeys().by_id(credential_id);
  if (use.passkey && account == nullptr) {
    use.owner = tx.users().by_id(use.passkey->user_id);
    // Read again once the account is held: a reset of its factors may have
    // removed the passkey meanwhile.
    use.passkey = tx.passkeys().by_id(credential_id);
  }
  std::optional<std::string> public_key;
  if (use.passkey) public_key = from_base64url(use.passkey->public_key);
  if (!use.passkey || !public_key || (account != nullptr && use.passkey->user_id != *account)) {
    use.failed = webauthn::Check::credential_id;
    return use;
  }
  std::optional<std::string> stored_id = from_base64url(use.passkey->id);
  if (!stored_id) {
    use.failed = webauthn::Check::credential_id;
    return use;
  }
  webauthn::StoredCredential stored{*stored_id, use.passkey->algorithm, *public_key,
                                    static_cast<std::uint32_t>(use.passkey->sign_count),
                                    use.passkey->user_id};
  webauthn::AssertionResult result =
      webauthn::verify_assertion(response, rp, expected, stored, account == nullptr);
  if (result.failed) {
    use.failed = result.failed;
    return use;
  }
  // Conditional on the counter read: a concurrent use that moved it wins.
  if (!tx.passkeys().record_use(use.passkey->id, use.passkey->sign_count, result.sign_count,
                                result.backed_up, now)) {
    use.failed = webauthn::Check::sign_count;
    return use;
  }
  return use;
}

void spend_passkey_challenge(Transaction& tx,
                             const std::optional<webauthn::AssertionResponse>& response,
                             Millis now) {
  if (!response) return;
  std::optional<std::string> challenge = webauthn::challenge_of(response->client_data_json);
  if (challenge) tx.passkeys().take_challenge(sha256(*challenge), ChallengePurpose::sign_in, now);
}

std::string issue_passkey_challenge(Transaction& tx, ChallengePurpose purpose,
                                    const std::string& user_id, Millis now) {
  std::string challenge(32, '\0');
  randombytes_buf(challenge.data(), challenge.size());
  tx.passkeys().put_challenge(sha256(challenge), purpose, user_id, now + kPasskeyChallengeLifetime);
  return challenge;
}

}  // namespace authd
