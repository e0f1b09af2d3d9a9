// The templates every mail of authd is rendered from (docs/reference/mail-templates.md):
// for each mail a subject, a plain-text and an HTML part, in Mustache
// (kainjow::mustache, Debian's libkainjow-mustache-dev). The built-in set is
// compiled into the binary; --mail-templates DIR replaces any of them by a
// file of the same name in DIR, checked when the server starts.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <kainjow/mustache.hpp>

namespace authd {

// One mail, rendered: `subject` is a single line, `html` has every {{value}}
// HTML-escaped, `subject` and `text` have values as they are.
struct RenderedMail {
  std::string subject;
  std::string text;
  std::string html;
};

class MailTemplates {
 public:
  // The mails authd sends ("password_reset", ...): each has the templates
  // NAME.subject.mustache, NAME.text.mustache and NAME.html.mustache.
  static const std::vector<std::string_view>& mail_names();
  // The template file names of every mail.
  static std::vector<std::string> file_names();

  // The templates compiled into the binary.
  static const MailTemplates& built_in();

  // The built-in set with each file of `directory` named like one of them
  // put in its place. Nothing, and `error` saying which file and why, when
  // the directory cannot be read, or holds a *.mustache file that is not
  // one of the names, cannot be read or does not parse.
  static std::optional<MailTemplates> load(const std::string& directory, std::string& error);

  // Renders the three parts of `mail` with `data`.
  RenderedMail render(std::string_view mail, const kainjow::mustache::data& data) const;

 private:
  MailTemplates() = default;
  std::map<std::string, std::string, std::less<>> sources_;  // by file name
};

// Text made safe for HTML text and attribute values: & < > " ' escaped
// (' as &#39;, which HTML 4 knows too). `String`: std::string, or a
// WipedString for text that holds a secret.
template <class String = std::string>
String html_escape(std::string_view text) {
  String out;
  for (char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

}  // namespace authd
