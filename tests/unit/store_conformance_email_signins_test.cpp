// The store conformance suite for the sign-in mails area (interface.md
// 19.2-19.3), run unchanged on SQLite and on PostgreSQL (the PostgreSQL
// cases skip unless AUTHD_TEST_POSTGRES names a server; scripts/test.sh
// runs them there): one live mail per account and per address, found by
// its token's digest or its address, its wrong codes counted in the row,
// gone when used, erased or expired.
#include <gtest/gtest.h>

#include <optional>
#include <string>

#include "store/pruning.hpp"
#include "store_conformance_fixture.hpp"

namespace authd {
namespace {

template <class Backend>
class StoreConformanceEmailSignins : public StoreConformanceFixture<Backend> {
 protected:
  static EmailSignInRecord mail(const std::string& token, const UserRecord& u,
                                Millis expires_at = 90'000, Millis created_at = 1'000) {
    EmailSignInRecord r;
    r.token_digest = sha256(token);
    r.code_digest = sha256("code of " + token);
    r.user_id = u.id;
    r.email = u.email;
    r.created_at = created_at;
    r.expires_at = expires_at;
    return r;
  }

  void replace(const EmailSignInRecord& r) {
    this->write([&](Transaction& tx) { tx.email_signins().replace(r); });
  }

  std::optional<EmailSignInRecord> by_token(const std::string& token) {
    std::optional<EmailSignInRecord> found;
    this->read([&](Transaction& tx) { found = tx.email_signins().by_token(sha256(token)); });
    return found;
  }

  std::optional<EmailSignInRecord> by_email(const std::string& email) {
    std::optional<EmailSignInRecord> found;
    this->read([&](Transaction& tx) { found = tx.email_signins().by_email(email); });
    return found;
  }

  int count_wrong_code(const std::string& email) {
    int count = -1;
    this->write([&](Transaction& tx) { count = tx.email_signins().count_wrong_code(email); });
    return count;
  }
};

using Backends = ::testing::Types<OnSqlite, OnPostgres>;
TYPED_TEST_SUITE(StoreConformanceEmailSignins, Backends);

void expect_same_mail(const EmailSignInRecord& a, const EmailSignInRecord& b) {
  EXPECT_EQ(a.token_digest, b.token_digest);
  EXPECT_EQ(a.code_digest, b.code_digest);
  EXPECT_EQ(a.user_id, b.user_id);
  EXPECT_EQ(a.email, b.email);
  EXPECT_EQ(a.created_at, b.created_at);
  EXPECT_EQ(a.expires_at, b.expires_at);
  EXPECT_EQ(a.wrong_codes, b.wrong_codes);
}

// interface.md 19.2: a mail reads back whole, by its token's digest and by
// its address; nothing is found for another token or address.
TYPED_TEST(StoreConformanceEmailSignins, Interface_19_2_AMailReadsBackByTokenAndByEmail) {
  UserRecord a = this->stored_user("a@example.com");
  EmailSignInRecord stored = this->mail("a", a, 90'000, 2'000);
  this->replace(stored);
  auto found = this->by_token("a");
  ASSERT_TRUE(found);
  expect_same_mail(*found, stored);
  auto by_email = this->by_email("a@example.com");
  ASSERT_TRUE(by_email);
  expect_same_mail(*by_email, stored);
  EXPECT_FALSE(this->by_token("never minted"));
  EXPECT_FALSE(this->by_email("b@example.com"));
}

// interface.md 19.2: one live mail per account: a newer one voids the
// older (its token finds nothing); another account's mail stays.
TYPED_TEST(StoreConformanceEmailSignins, Interface_19_2_ANewerMailVoidsTheOlderOfItsAccountOnly) {
  UserRecord a = this->stored_user("a@example.com");
  UserRecord b = this->stored_user("b@example.com");
  this->replace(this->mail("a-old", a));
  this->replace(this->mail("b", b));
  EmailSignInRecord newer = this->mail("a-new", a, 95'000, 2'000);
  this->replace(newer);
  EXPECT_FALSE(this->by_token("a-old"));
  auto current = this->by_token("a-new");
  ASSERT_TRUE(current);
  expect_same_mail(*current, newer);
  auto of_a = this->by_email("a@example.com");
  ASSERT_TRUE(of_a);
  expect_same_mail(*of_a, newer);
  EXPECT_TRUE(this->by_token("b"));
}

// interface.md 19.2: one live mail per address too: a mail minted for an
// address that another account held when its mail was minted (that
// account has moved to another address since) removes the older row.
TYPED_TEST(StoreConformanceEmailSignins,
           Interface_19_2_AMailRemovesAnotherAccountsRowOfItsAddress) {
  UserRecord moved = this->stored_user("shared@example.com");
  this->replace(this->mail("moved", moved));
  moved.email = "moved@example.com";
  this->write([&](Transaction& tx) { tx.users().update(moved); });
  UserRecord holder = this->stored_user("shared@example.com");
  EmailSignInRecord newer = this->mail("holder", holder, 95'000, 2'000);
  this->replace(newer);
  EXPECT_FALSE(this->by_token("moved"));
  auto of_address = this->by_email("shared@example.com");
  ASSERT_TRUE(of_address);
  expect_same_mail(*of_address, newer);
}

// interface.md 19.3: a wrong code counts in the address's mail: the new
// count each time; 0, and nothing written, when the address has no mail.
// A newer mail starts again from its own count.
TYPED_TEST(StoreConformanceEmailSignins, Interface_19_3_CountWrongCodeReturnsTheNewCount) {
  UserRecord a = this->stored_user("a@example.com");
  UserRecord b = this->stored_user("b@example.com");
  this->replace(this->mail("a", a));
  this->replace(this->mail("b", b));
  EXPECT_EQ(this->count_wrong_code("a@example.com"), 1);
  EXPECT_EQ(this->count_wrong_code("a@example.com"), 2);
  EXPECT_EQ(this->count_wrong_code("a@example.com"), 3);
  EXPECT_EQ(this->count_wrong_code("nobody@example.com"), 0);
  EXPECT_EQ(this->count_wrong_code("nobody@example.com"), 0);
  EXPECT_FALSE(this->by_email("nobody@example.com"));
  auto of_a = this->by_token("a");
  ASSERT_TRUE(of_a);
  EXPECT_EQ(of_a->wrong_codes, 3);
  auto of_b = this->by_token("b");
  ASSERT_TRUE(of_b);
  EXPECT_EQ(of_b->wrong_codes, 0);
  this->replace(this->mail("a-new", a));
  EXPECT_EQ(this->count_wrong_code("a@example.com"), 1);
}

// interface.md 19.3: a used mail (delete_of_user) is gone, link and code,
// and only that account's.
TYPED_TEST(StoreConformanceEmailSignins, Interface_19_3_DeleteOfUserRemovesThatAccountsMailOnly) {
  UserRecord a = this->stored_user("a@example.com");
  UserRecord b = this->stored_user("b@example.com");
  this->replace(this->mail("a", a));
  this->replace(this->mail("b", b));
  this->write([&](Transaction& tx) {
    tx.email_signins().delete_of_user(a.id);
    tx.email_signins().delete_of_user(a.id);  // nothing left: no error
  });
  EXPECT_FALSE(this->by_token("a"));
  EXPECT_FALSE(this->by_email("a@example.com"));
  EXPECT_EQ(this->count_wrong_code("a@example.com"), 0);
  EXPECT_TRUE(this->by_token("b"));
}

// interface.md 19.2: mails expired at `now` are pruned, the others kept;
// the pruner's first transaction (PrunePass::run) includes them.
TYPED_TEST(StoreConformanceEmailSignins, Interface_19_2_PruneRemovesExpiredMailsOnly) {
  UserRecord a = this->stored_user("a@example.com");
  UserRecord b = this->stored_user("b@example.com");
  UserRecord c = this->stored_user("c@example.com");
  this->replace(this->mail("a", a, 4'000));
  this->replace(this->mail("b", b, 5'000));
  this->replace(this->mail("c", c, 5'001));
  this->write([&](Transaction& tx) { EXPECT_EQ(tx.email_signins().prune(5'000), 2); });
  this->write([&](Transaction& tx) { EXPECT_EQ(tx.email_signins().prune(5'000), 0); });
  EXPECT_FALSE(this->by_token("a"));
  EXPECT_FALSE(this->by_token("b"));
  EXPECT_TRUE(this->by_token("c"));
  this->write([&](Transaction& tx) { EXPECT_EQ(PrunePass({10'000, 0, 0, 0}).run(tx), 1); });
  EXPECT_FALSE(this->by_token("c"));
}

}  // namespace
}  // namespace authd
