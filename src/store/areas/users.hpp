// The users area: accounts and the kinds of password hash they hold.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "store/records.hpp"

namespace authd {

// Accounts another transaction holds, by id and by address.
struct HeldAccounts {
  std::vector<std::string> ids;
  std::vector<std::string> emails;
};

class UserStore {
 public:
  virtual ~UserStore() = default;

  // In a write transaction on PostgreSQL the row found is locked until the
  // commit, so that a read-then-write of one user is atomic across instances.
  virtual std::optional<UserRecord> by_email(std::string_view canonical_email) = 0;
  virtual std::optional<UserRecord> by_id(std::string_view id) = 0;
  // Whether an account has this address, without locking it even in a
  // write transaction: a change of e-mail holds its own account and must
  // not then wait for another one (interface.md 8.2); the unique index
  // still refuses an address taken meanwhile.
  virtual bool email_taken(std::string_view canonical_email) = 0;
  // The account's address, without locking it: a write that knows only the
  // account's id takes the address's login throttle key first, in /login's
  // order, then locks the account with by_id (interface.md 8.2).
  virtual std::optional<std::string> email_of(std::string_view id) = 0;
  // In a write transaction on PostgreSQL, locks the accounts that have one
  // of `emails` or one of `ids`, in id order, so that transactions that then
  // read several of them (by_email, by_id) hold them in one order and cannot
  // deadlock. An account another transaction holds is skipped, not waited
  // for, and returned: the outbox's claim, which holds its mails already,
  // leaves the mails of such an account for later, since an account's
  // change holds the account and then deletes its mails (interface.md 8.2).
  // Nothing to do on SQLite, whose single writer locks it all.
  virtual HeldAccounts lock_in_id_order_unless_held(std::span<const std::string> emails,
                                                    std::span<const std::string> ids) = 0;
  virtual bool insert(const UserRecord& user) = 0;  // false: e-mail taken
  virtual void update(const UserRecord& user) = 0;  // every column but id and created_at
  // The same for a change of e-mail: false, and nothing changed, when
  // another account holds the new address, even one inserted by a
  // transaction that commits while this one waits for it.
  virtual bool update_unless_email_taken(const UserRecord& user) = 0;
  // Changes only the hash: a transparent upgrade is not a change of the record.
  virtual void replace_password_hash(std::string_view user_id, std::string_view phc) = 0;
  // The kinds of the password hashes stored (crypto/hash_kind.hpp: algorithm
  // and parameters, never a salt or digest). The three writes above add the
  // kind of the hash they store, in their transaction; a kind stays listed
  // after its last hash is gone, until reconcile_hash_kinds() drops it.
  virtual std::vector<std::string> password_hash_kinds() = 0;
  // The same kinds with their last measured cost (interface.md 10.5), by kind.
  virtual std::vector<HashKindCost> hash_kind_costs() = 0;
  // Stores a kind's measured cost relative to the own kind `basis`; nothing
  // when the kind is not listed (no hash of it is stored any more).
  virtual void set_hash_kind_cost(std::string_view kind, std::string_view basis,
                                  double relative_cost) = 0;
  // Makes the set of kinds that of the hashes stored: lists the kinds in
  // use that are missing, and drops the kinds that no stored hash has any
  // more (their costs with them); returns the kinds dropped. Reads every
  // stored hash, so it runs seldom, in a write transaction: on PostgreSQL
  // it locks the set first, so that a hash written meanwhile (which lists
  // its kind) either is read or waits for the commit.
  virtual std::vector<std::string> reconcile_hash_kinds() = 0;

  // The admin API (interface.md 10.4).
  // Up to `limit` users with an id greater than `after` (empty: from the
  // first), by id: creation order, as ids are UUIDv7. Keyset paging, so a
  // listing never repeats or skips a user that existed when it began.
  virtual std::vector<UserRecord> page_after(std::string_view after, int limit) = 0;
  // Sets lastLoginAt only: not a change of the record (updatedAt stays).
  virtual void record_login(std::string_view user_id, Millis at) = 0;
  // Deletes the account's row; its other rows are the other areas'
  // (auth/admin/erasure.hpp erases them all in one transaction).
  virtual bool remove(std::string_view user_id) = 0;
};

}  // namespace authd
