#include "mail/templates.hpp"

#include <filesystem>
#include <fstream>
#include <sstream>
#include <system_error>

#include "mail/template_files.hpp"

namespace authd {
namespace {

constexpr std::string_view kSuffix = ".mustache";
constexpr std::string_view kParts[] = {"subject", "text", "html"};

std::string file_name(std::string_view mail, std::string_view part) {
  return std::string(mail).append(".").append(part).append(kSuffix);
}

bool ends_with(std::string_view text, std::string_view suffix) {
  return text.size() >= suffix.size() && text.substr(text.size() - suffix.size()) == suffix;
}

// A header line: leading and trailing blanks go, and a line break inside
// (from a value or the template) becomes a space, so a subject can never
// add a header of its own.
std::string one_line(std::string text) {
  for (char& c : text)
    if (c == '\r' || c == '\n' || c == '\t') c = ' ';
  std::size_t first = text.find_first_not_of(' ');
  if (first == std::string::npos) return {};
  return text.substr(first, text.find_last_not_of(' ') - first + 1);
}

std::string render_part(const std::string& source, const kainjow::mustache::data& data, bool html) {
  kainjow::mustache::mustache part(source);
  if (html)
    part.set_custom_escape([](const std::string& value) { return html_escape(value); });
  else
    part.set_custom_escape([](const std::string& value) { return value; });
  std::string out;
  part.render(data, [&out](const std::string& piece) { out += piece; });
  return out;
}

// Why `source` does not parse as Mustache, or nothing.
std::optional<std::string> parse_error(const std::string& source) {
  kainjow::mustache::mustache parsed(source);
  if (parsed.is_valid()) return std::nullopt;
  return parsed.error_message();
}

std::optional<std::string> read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  std::ostringstream content;
  content << in.rdbuf();
  if (in.bad()) return std::nullopt;
  return content.str();
}

}  // namespace

const std::vector<std::string_view>& MailTemplates::mail_names() {
  static const std::vector<std::string_view> kNames = {
      "password_reset",  "signup",       "account_exists",     "password_changed",
      "email_changed",   "mfa_enabled",  "mfa_disabled",       "passkey_added",
      "passkey_removed", "email_signin", "email_signin_signup"};
  return kNames;
}

std::vector<std::string> MailTemplates::file_names() {
  std::vector<std::string> names;
  for (std::string_view mail : mail_names())
    for (std::string_view part : kParts) names.push_back(file_name(mail, part));
  return names;
}

const MailTemplates& MailTemplates::built_in() {
  static const MailTemplates kBuiltIn = [] {
    MailTemplates templates;
    for (const std::string& name : file_names())
      templates.sources_[name] = std::string(mail::template_file(name).value_or(""));
    return templates;
  }();
  return kBuiltIn;
}

std::optional<MailTemplates> MailTemplates::load(const std::string& directory, std::string& error) {
  MailTemplates templates = built_in();
  std::error_code failure;
  std::filesystem::directory_iterator entries(directory, failure);
  if (failure) {
    error = directory;
    error += ": ";
    error += failure.message();
    return std::nullopt;
  }
  for (const std::filesystem::directory_entry& entry : entries) {
    const std::string name = entry.path().filename().string();
    if (!ends_with(name, kSuffix)) continue;  // a README or an editor's backup
    const std::string path = entry.path().string();
    // A misspelt name would otherwise leave the built-in template in force
    // without a word.
    auto known = templates.sources_.find(name);
    if (known == templates.sources_.end()) {
      error = path;
      error += ": not a template authd uses (see docs/reference/mail-templates.md)";
      return std::nullopt;
    }
    std::optional<std::string> source = read_file(path);
    if (!source) {
      error = path;
      error += ": cannot be read";
      return std::nullopt;
    }
    if (std::optional<std::string> problem = parse_error(*source)) {
      error = path;
      error += ": ";
      error += *problem;
      return std::nullopt;
    }
    known->second = std::move(*source);
  }
  return templates;
}

RenderedMail MailTemplates::render(std::string_view mail,
                                   const kainjow::mustache::data& data) const {
  auto source = [&](std::string_view part) -> const std::string& {
    static const std::string kNone;
    auto found = sources_.find(file_name(mail, part));
    return found == sources_.end() ? kNone : found->second;
  };
  // The analyzer follows kainjow's constructors into a virtual call it
  // cannot resolve; mustache.hpp calls it on a fully built object.
  // NOLINTNEXTLINE(clang-analyzer-optin.cplusplus.VirtualCall)
  return {one_line(render_part(source("subject"), data, false)),
          render_part(source("text"), data, false), render_part(source("html"), data, true)};
}

}  // namespace authd
