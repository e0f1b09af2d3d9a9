// mail/templates and the notification mails (interface.md 14.3): every mail
// is rendered from Mustache templates, built in or replaced from
// --mail-templates; values are HTML-escaped in the HTML part only, a
// subject stays one line, and a notice says what changed, who changed it
// and when, and nothing secret.
#include <gtest/gtest.h>

#include <fstream>
#include <string>

#include "auth/events/notices.hpp"
#include "mail/message.hpp"
#include "mail/templates.hpp"
#include "temp_directory.hpp"

namespace authd {
namespace {

using namespace std::chrono_literals;

constexpr Millis kChangedAt = 1'795'253'400'123;  // Sat, 21 Nov 2026 09:30:00.123 UTC

void write_file(const std::string& path, const std::string& content) {
  std::ofstream(path, std::ios::binary) << content;
}

kainjow::mustache::data one_value(const std::string& name, const std::string& value) {
  kainjow::mustache::data data;
  data.set(name, value);
  return data;
}

// Every mail authd sends has its three templates built in, each one valid
// Mustache that renders to something.
TEST(MailTemplates, Interface_14_3_4_EveryBuiltInTemplateParsesAndRenders) {
  EXPECT_EQ(MailTemplates::file_names().size(), 3 * MailTemplates::mail_names().size());
  for (std::string_view mail : MailTemplates::mail_names()) {
    RenderedMail rendered = MailTemplates::built_in().render(mail, one_value("email", "a@b.c"));
    EXPECT_FALSE(rendered.subject.empty()) << mail;
    EXPECT_FALSE(rendered.text.empty()) << mail;
    EXPECT_EQ(rendered.html.rfind("<!DOCTYPE html>", 0), 0u) << mail;
  }
}

// interface.md 14.3.2: in the HTML part a value is escaped; in the text
// part and the subject it is as it is.
TEST(MailTemplates, Interface_14_3_2_HtmlPartEscapesValuesTextPartDoesNot) {
  NoticeFacts facts{{NoticeTopic::password_changed, NoticeActor::self},
                    "o'brien@example.com",
                    "<script>alert(1)</script> & co",
                    kChangedAt};
  MailMessage m =
      notice_mail("authd <no-reply@example.com>", facts, "https://auth.example.com/", kChangedAt);
  EXPECT_EQ(m.html_body.find("<script>"), std::string::npos) << m.html_body;
  EXPECT_NE(m.html_body.find("&lt;script&gt;alert(1)&lt;/script&gt; &amp; co"), std::string::npos)
      << m.html_body;
  EXPECT_NE(m.html_body.find("o&#39;brien@example.com"), std::string::npos) << m.html_body;
  EXPECT_NE(m.text_body.find("Hello <script>alert(1)</script> & co,"), std::string::npos)
      << m.text_body;
  EXPECT_EQ(m.to, "o'brien@example.com");
}

// interface.md 14.3.2: what changed, by whom, when (UTC), where to turn;
// no link with a token.
TEST(MailTemplates, Interface_14_3_2_NoticeSaysWhatChangedWhoAndWhen) {
  auto notice = [](NoticeTopic topic, NoticeActor actor) {
    return notice_mail("f@x.y", {{topic, actor}, "alice@example.com", std::nullopt, kChangedAt},
                       "https://auth.example.com/", kChangedAt + 5000);
  };
  MailMessage reset = notice(NoticeTopic::password_changed, NoticeActor::reset);
  EXPECT_EQ(reset.subject, "Your password was changed");
  EXPECT_NE(reset.text_body.find("2026-11-21 09:30 UTC"), std::string::npos) << reset.text_body;
  EXPECT_NE(reset.text_body.find("password-reset link"), std::string::npos) << reset.text_body;
  EXPECT_NE(reset.text_body.find("https://auth.example.com/forgot"), std::string::npos);
  EXPECT_NE(reset.text_body.find("Hello,"), std::string::npos) << reset.text_body;
  EXPECT_EQ(reset.text_body.find("#token="), std::string::npos);
  EXPECT_NE(notice(NoticeTopic::password_changed, NoticeActor::admin)
                .text_body.find("by an administrator"),
            std::string::npos);
  EXPECT_NE(notice(NoticeTopic::password_changed, NoticeActor::self)
                .text_body.find("from a session signed in"),
            std::string::npos);
  EXPECT_EQ(notice(NoticeTopic::email_changed, NoticeActor::admin).subject,
            "The e-mail address of your account was changed");
  EXPECT_EQ(notice(NoticeTopic::mfa_enabled, NoticeActor::self).subject,
            "A second factor was added to your account");
  EXPECT_EQ(notice(NoticeTopic::mfa_disabled, NoticeActor::admin).subject,
            "The second factor of your account was removed");
  EXPECT_EQ(notice(NoticeTopic::passkey_added, NoticeActor::self).subject,
            "A passkey was added to your account");
  EXPECT_EQ(notice(NoticeTopic::passkey_removed, NoticeActor::self).subject,
            "A passkey was removed from your account");
}

// interface.md 14.3.2 and 16: a passkey's notice speaks of a passkey, not
// of an authenticator app, says who and when, and points to a reset.
TEST(MailTemplates, Interface_14_3_2_PasskeyNoticesSayWhatChangedWhoAndWhen) {
  auto notice = [](NoticeTopic topic, NoticeActor actor) {
    return notice_mail("f@x.y", {{topic, actor}, "alice@example.com", "Alice", kChangedAt},
                       "https://auth.example.com/", kChangedAt + 5000);
  };
  MailMessage added = notice(NoticeTopic::passkey_added, NoticeActor::self);
  MailMessage removed = notice(NoticeTopic::passkey_removed, NoticeActor::self);
  MailMessage reset = notice(NoticeTopic::passkey_removed, NoticeActor::admin);
  for (const MailMessage* m : {&added, &removed, &reset}) {
    for (const std::string* body : {&m->text_body, &m->html_body}) {
      EXPECT_NE(body->find("Hello Alice,"), std::string::npos) << *body;
      EXPECT_NE(body->find("passkey"), std::string::npos) << *body;
      EXPECT_NE(body->find("alice@example.com"), std::string::npos) << *body;
      EXPECT_NE(body->find("2026-11-21 09:30 UTC"), std::string::npos) << *body;
      EXPECT_NE(body->find("https://auth.example.com/forgot"), std::string::npos) << *body;
      EXPECT_EQ(body->find("TOTP"), std::string::npos) << *body;
      EXPECT_EQ(body->find("#token="), std::string::npos) << *body;
    }
  }
  EXPECT_NE(added.text_body.find("without the password"), std::string::npos) << added.text_body;
  EXPECT_NE(added.text_body.find("remove the passkey"), std::string::npos) << added.text_body;
  EXPECT_NE(removed.text_body.find("from a session signed in"), std::string::npos)
      << removed.text_body;
  EXPECT_EQ(removed.text_body.find("by an administrator"), std::string::npos) << removed.text_body;
  EXPECT_NE(reset.text_body.find("by an administrator"), std::string::npos) << reset.text_body;
  EXPECT_EQ(reset.text_body.find("from a session signed in"), std::string::npos) << reset.text_body;
}

// A subject is one header line whatever the template or a value holds.
TEST(MailTemplates, SubjectIsOneLine) {
  test::TempDirectory dir;
  write_file(dir.file("account_exists.subject.mustache"), "  Hi\r\nBcc: {{email}}\n\n");
  std::string error;
  std::optional<MailTemplates> templates = MailTemplates::load(dir.path().string(), error);
  ASSERT_TRUE(templates) << error;
  MailMessage m = account_exists_mail("f@x.y", "a@b.c", "https://x.y", kChangedAt, {}, *templates);
  EXPECT_EQ(m.subject, "Hi  Bcc: a@b.c");
}

// interface.md 14.3.4: a file in the directory replaces the built-in
// template of its name; the others stay.
TEST(MailTemplates, Interface_14_3_4_DirectoryReplacesTemplatesOfTheSameName) {
  test::TempDirectory dir;
  write_file(dir.file("password_reset.text.mustache"),
             "Reset {{email}}: {{link}} ({{minutes}} min)\n");
  write_file(dir.file("README"), "not a template");
  std::string error;
  std::optional<MailTemplates> templates = MailTemplates::load(dir.path().string(), error);
  ASSERT_TRUE(templates) << error;
  MailMessage m = password_reset_mail("f@x.y", "a&b@c.d", "https://x.y/", "rst_tok", 30min,
                                      kChangedAt, *templates);
  EXPECT_EQ(m.text_body, "Reset a&b@c.d: https://x.y/reset#token=rst_tok (30 min)\n");
  EXPECT_EQ(m.subject, "Reset your password");
  EXPECT_NE(m.html_body.find("href=\"https://x.y/reset#token=rst_tok\""), std::string::npos);
}

// interface.md 14.3.4: what would fail at delivery stops the start instead,
// with the file named.
TEST(MailTemplates, Interface_14_3_4_BrokenUnknownOrMissingTemplatesAreRefused) {
  std::string error;
  {
    test::TempDirectory dir;
    write_file(dir.file("mfa_enabled.html.mustache"), "<p>{{#time}}unclosed</p>\n");
    EXPECT_FALSE(MailTemplates::load(dir.path().string(), error));
    EXPECT_NE(error.find("mfa_enabled.html.mustache"), std::string::npos) << error;
  }
  {
    test::TempDirectory dir;
    write_file(dir.file("password_changd.text.mustache"), "typo\n");
    EXPECT_FALSE(MailTemplates::load(dir.path().string(), error));
    EXPECT_NE(error.find("password_changd.text.mustache"), std::string::npos) << error;
  }
  EXPECT_FALSE(MailTemplates::load("/nonexistent/authd-templates", error));
  EXPECT_NE(error.find("/nonexistent/authd-templates"), std::string::npos) << error;
}

// The token of a link never reaches the template engine: a template that
// shows {{link}} twice, once escaped and once raw, gets the link both times.
TEST(MailTemplates, LinkIsPutInEveryPlaceTheTemplateShowsIt) {
  test::TempDirectory dir;
  write_file(dir.file("signup.html.mustache"), "<a href=\"{{link}}\">{{{link}}}</a>");
  std::string error;
  std::optional<MailTemplates> templates = MailTemplates::load(dir.path().string(), error);
  ASSERT_TRUE(templates) << error;
  MailMessage m = signup_mail("f@x.y", "a@b.c", "https://x.y/?a=1&b=2", "sgn_t", 24h, kChangedAt,
                              {}, *templates);
  EXPECT_EQ(m.html_body,
            "<a href=\"https://x.y/?a=1&amp;b=2/verify#token=sgn_t\">"
            "https://x.y/?a=1&amp;b=2/verify#token=sgn_t</a>");
}

// interface.md 14.3.1: each notice's outbox kind names what changed and who
// changed it, and reads back.
TEST(Notices, Interface_14_3_1_KindsRoundTrip) {
  for (NoticeTopic topic :
       {NoticeTopic::password_changed, NoticeTopic::email_changed, NoticeTopic::mfa_enabled,
        NoticeTopic::mfa_disabled, NoticeTopic::passkey_added, NoticeTopic::passkey_removed}) {
    for (NoticeActor actor : {NoticeActor::self, NoticeActor::reset, NoticeActor::admin}) {
      Notice notice{topic, actor};
      EXPECT_EQ(parse_notice_kind(notice_kind(notice)), notice) << notice_kind(notice);
    }
  }
  EXPECT_EQ(notice_kind({NoticeTopic::email_changed, NoticeActor::admin}),
            "notice_email_changed:admin");
  EXPECT_EQ(notice_kind({NoticeTopic::passkey_added, NoticeActor::self}),
            "notice_passkey_added:self");
  EXPECT_EQ(notice_kind({NoticeTopic::passkey_removed, NoticeActor::admin}),
            "notice_passkey_removed:admin");
  EXPECT_FALSE(parse_notice_kind("password_reset"));
  EXPECT_FALSE(parse_notice_kind("notice_password_changed"));
  EXPECT_FALSE(parse_notice_kind("notice_password_changed:someone"));
}

// interface.md 14.3.3: --notify takes names or none; anything else is refused.
TEST(Notices, Interface_14_3_3_NotifyListParses) {
  std::string problem;
  auto all = parse_notify_list("password-changed,email-changed,mfa-changed", problem);
  ASSERT_TRUE(all);
  EXPECT_TRUE(all->password_changed && all->email_changed && all->mfa_changed);
  auto none = parse_notify_list("none", problem);
  ASSERT_TRUE(none);
  EXPECT_FALSE(none->password_changed || none->email_changed || none->mfa_changed);
  auto one = parse_notify_list("email-changed", problem);
  ASSERT_TRUE(one);
  EXPECT_EQ(notify_list(*one), "email-changed");
  for (const char* bad : {"", "all", "password-changed,", "mfa", "none,email-changed"}) {
    EXPECT_FALSE(parse_notify_list(bad, problem)) << bad;
  }
  EXPECT_NE(problem.find("password-changed"), std::string::npos) << problem;
}

}  // namespace
}  // namespace authd
