// The e-mail sign-ins area (interface.md 19.2): the live sign-in mail of an
// account, at most one, as the digests of its link's token and of its code.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "store/records.hpp"

namespace authd {

struct EmailSignInRecord {
  Sha256Digest token_digest{};  // SHA-256 of the link's token
  Sha256Digest code_digest{};   // the code's keyed digest (auth/mail_flows/email_signin.hpp)
  std::string user_id;
  std::string email;  // the account's canonical address when the mail was minted
  Millis created_at = 0;
  Millis expires_at = 0;
  int wrong_codes = 0;
};

class EmailSignInStore {
 public:
  virtual ~EmailSignInStore() = default;

  // Stores `record` as its user's only live sign-in mail (an older one is
  // void) and as its address's only one (a row of another account left with
  // this address, which changed hands since, is removed).
  virtual void replace(const EmailSignInRecord& record) = 0;
  // In a write transaction on PostgreSQL the row is locked, so that of two
  // concurrent uses of one mail one wins.
  virtual std::optional<EmailSignInRecord> by_token(const Sha256Digest& digest) = 0;
  virtual std::optional<EmailSignInRecord> by_email(std::string_view email) = 0;
  // Counts one wrong code against the address's mail: the new count, 0 when
  // the address has no mail. One statement whether or not it has one.
  virtual int count_wrong_code(std::string_view email) = 0;
  virtual void delete_of_user(std::string_view user_id) = 0;
  // Removes the mails expired at `now`; returns the rows removed.
  virtual std::int64_t prune(Millis now) = 0;
};

}  // namespace authd
