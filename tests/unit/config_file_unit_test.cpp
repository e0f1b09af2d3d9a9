// Secret redaction for `authd config` and the logs (config/config_file.hpp).
#include <gtest/gtest.h>

#include "config/config_file.hpp"

namespace authd {
namespace {

TEST(ConfigRedaction, PasswordsInDatabaseUrlsAreRedacted) {
  struct Case {
    const char* in;
    const char* out;
  };
  const Case cases[] = {
      {"sqlite:authd.db", "sqlite:authd.db"},
      {"sqlite:/var/lib/authd/authd.db", "sqlite:/var/lib/authd/authd.db"},
      {"postgresql://alice:s3cret@db/authd", "postgresql://alice:<redacted>@db/authd"},
      {"postgresql://alice@db/authd", "postgresql://alice@db/authd"},
      {"postgresql://db/authd", "postgresql://db/authd"},
      {"postgres://a:p%40ss@h:5432/d?sslmode=require",
       "postgres://a:<redacted>@h:5432/d?sslmode=require"},
      {"postgresql://a:b:c@h/d", "postgresql://a:<redacted>@h/d"},
      {"postgresql://a:p@ss@h/d", "postgresql://a:<redacted>@h/d"},
      {"postgresql://h/d?user=a&password=xyz&x=1",
       "postgresql://h/d?user=a&password=<redacted>&x=1"},
      {"postgresql://h/d?sslpassword=xyz", "postgresql://h/d?sslpassword=<redacted>"},
      {"host=db user=a password=xyz dbname=d", "host=db user=a password=<redacted> dbname=d"},
      {"host=db password='x y z' dbname=d", "host=db password=<redacted> dbname=d"},
      {"smtp://mailer:pw@smtp.example:587", "smtp://mailer:<redacted>@smtp.example:587"},
      {"http://example.com/a@b", "http://example.com/a@b"},
      // Unencoded '/', '?', '#' and '@' in the password: all of it hidden.
      {"postgresql://alice:p/ss@db/authd", "postgresql://alice:<redacted>@db/authd"},
      {"postgresql://alice:p?ss@db/authd", "postgresql://alice:<redacted>@db/authd"},
      {"postgresql://alice:p#ss@db/authd", "postgresql://alice:<redacted>@db/authd"},
      {"postgresql://alice:a/b?c#d@e@db:5432/authd?sslmode=require",
       "postgresql://alice:<redacted>@db:5432/authd?sslmode=require"},
      {"postgresql://alice:/?#@db/authd", "postgresql://alice:<redacted>@db/authd"},
  };
  for (const auto& c : cases) EXPECT_EQ(redact_url_secrets(c.in), c.out) << c.in;
  // Whatever else happens, no character of such a password survives.
  for (const char* password : {"s3/cr?et#x@y", "/?#@", "a@b/c", "x#y?z/w"}) {
    std::string url = std::string("postgresql://alice:") + password + "@db.example/authd";
    std::string shown = redact_url_secrets(url);
    EXPECT_EQ(shown, "postgresql://alice:<redacted>@db.example/authd") << url;
  }
}

TEST(ConfigRedaction, KeysNamingAPasswordOrSecretAreSecret) {
  EXPECT_TRUE(is_secret_key("smtp-password"));
  EXPECT_TRUE(is_secret_key("webhook-secret"));
  EXPECT_FALSE(is_secret_key("reset-token-lifetime"));
  EXPECT_FALSE(is_secret_key("database"));
}

}  // namespace
}  // namespace authd
