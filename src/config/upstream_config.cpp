#include "config/upstream_config.hpp"

#include <fstream>
#include <set>
#include <sstream>

#include <toml++/toml.h>

#include "config/config_file.hpp"
#include "core/wipe.hpp"

namespace authd {
namespace {

class TableReader {
 public:
  TableReader(const std::string& path, std::size_t index, const toml::table& table)
      : path_(path), index_(index), table_(table) {}

  std::string text(const char* key, const std::string& fallback = "") {
    const toml::node* node = take(key);
    if (node == nullptr) return fallback;
    if (auto v = node->value_exact<std::string>()) return *v;
    fail(key, "must be a string");
  }
  bool boolean(const char* key, bool fallback) {
    const toml::node* node = take(key);
    if (node == nullptr) return fallback;
    if (auto v = node->value_exact<bool>()) return *v;
    fail(key, "must be true or false");
  }
  std::vector<std::string> list(const char* key, std::vector<std::string> fallback) {
    const toml::node* node = take(key);
    if (node == nullptr) return fallback;
    std::vector<std::string> items;
    if (const toml::array* array = node->as_array()) {
      for (const toml::node& item : *array) {
        auto v = item.value_exact<std::string>();
        if (!v) fail(key, "must be an array of strings");
        items.push_back(*v);
      }
      return items;
    }
    fail(key, "must be an array of strings");
  }
  // Every key of the table was read: another one is a mistake.
  void refuse_unknown() {
    for (const auto& [key, node] : table_) {
      if (!read_.contains(std::string(key.str()))) fail(std::string(key.str()), "unknown key");
    }
  }
  [[noreturn]] void fail(const std::string& key, const std::string& problem) const {
    std::ostringstream message;
    message << path_ << ": [[upstream]] #" << (index_ + 1);
    if (!name_.empty()) message << " (" << name_ << ")";
    message << ": key '" << key << "': " << problem;
    throw ConfigFileError(message.str());
  }
  void named(std::string name) { name_ = std::move(name); }

 private:
  const toml::node* take(const char* key) {
    read_.insert(key);
    return table_.get(key);
  }

  const std::string& path_;
  std::size_t index_;
  const toml::table& table_;
  std::set<std::string> read_;
  std::string name_;
};

UpstreamProvider read_table(const std::string& path, std::size_t index, const toml::table& table) {
  TableReader in(path, index, table);
  UpstreamProvider p;
  p.name = in.text("name");
  in.named(p.name);
  std::string kind = in.text("kind", "oidc");
  if (kind != "oidc" && kind != "oauth2") in.fail("kind", "must be \"oidc\" or \"oauth2\"");
  p.kind = kind == "oidc" ? UpstreamKind::oidc : UpstreamKind::oauth2;
  p.label = in.text("label");
  p.issuer = in.text("issuer");
  p.client_id = in.text("client-id");
  p.client_secret_file = in.text("client-secret-file");
  std::vector<std::string> default_scopes;
  if (p.kind == UpstreamKind::oidc) default_scopes = {"openid", "email", "profile"};
  p.scopes = in.list("scopes", default_scopes);
  p.signup = in.boolean("signup", false);
  p.keep_tokens = in.boolean("keep-tokens", false);
  p.authorization_endpoint = in.text("authorization-endpoint");
  p.token_endpoint = in.text("token-endpoint");
  p.userinfo_endpoint = in.text("userinfo-endpoint");
  p.emails_endpoint = in.text("emails-endpoint");
  ClaimMapping defaults;
  p.claims.subject = in.text("subject-claim", defaults.subject);
  p.claims.email = in.text("email-claim", defaults.email);
  p.claims.email_verified = in.text("email-verified-claim", defaults.email_verified);
  p.claims.name = in.text("name-claim", defaults.name);
  p.claims.fallback_name = in.text("fallback-name-claim", defaults.fallback_name);
  in.refuse_unknown();  // first: a misspelt key is the likelier mistake
  if (p.client_secret_file.empty()) in.fail("client-secret-file", "required");
  std::string problem = upstream_problem(p);
  if (!problem.empty()) {
    auto colon = problem.find(": ");
    in.fail(problem.substr(0, colon), problem.substr(colon + 2));
  }
  return p;
}

std::string toml_text(const std::string& text) {
  std::ostringstream out;
  out << toml::value<std::string>(text);
  return out.str();
}

}  // namespace

std::vector<UpstreamProvider> read_upstream_tables(const std::string& path) {
  toml::table file;
  try {
    file = toml::parse_file(path);
  } catch (const std::exception& e) {
    return {};  // apply_config_file reported the syntax error already
  }
  const toml::node* node = file.get("upstream");
  if (node == nullptr) return {};
  const toml::array* tables = node->as_array();
  if (tables == nullptr)
    throw ConfigFileError(path + ": 'upstream' must be an array of tables ([[upstream]])");
  std::vector<UpstreamProvider> providers;
  std::set<std::string> names;
  for (std::size_t i = 0; i < tables->size(); ++i) {
    const toml::table* table = (*tables)[i].as_table();
    if (table == nullptr)
      throw ConfigFileError(path + ": 'upstream' must be an array of tables ([[upstream]])");
    UpstreamProvider p = read_table(path, i, *table);
    if (!names.insert(p.name).second)
      throw ConfigFileError(path + ": [[upstream]] #" + std::to_string(i + 1) + ": key 'name': '" +
                            p.name + "' is used by another provider");
    providers.push_back(std::move(p));
  }
  return providers;
}

void load_upstream_secrets(std::vector<UpstreamProvider>& providers) {
  for (UpstreamProvider& p : providers) {
    std::ifstream in(p.client_secret_file, std::ios::binary);
    std::stringstream text;
    text << in.rdbuf();
    std::string secret = text.str();
    while (!secret.empty() && (secret.back() == '\n' || secret.back() == '\r')) secret.pop_back();
    if (!in || secret.empty()) {
      wipe(secret);
      throw std::runtime_error("upstream provider " + p.name + ": client-secret-file " +
                               p.client_secret_file + " cannot be read or is empty");
    }
    p.client_secret = std::move(secret);
  }
}

std::string upstream_tables_text(const std::vector<UpstreamProvider>& providers) {
  std::ostringstream out;
  for (const UpstreamProvider& p : providers) {
    out << "\n[[upstream]]\nname = " << toml_text(p.name)
        << "\nkind = " << (p.kind == UpstreamKind::oidc ? "\"oidc\"" : "\"oauth2\"") << "\n";
    if (!p.issuer.empty()) out << "issuer = " << toml_text(p.issuer) << "\n";
    for (const auto& [key, value] : {std::pair{"authorization-endpoint", &p.authorization_endpoint},
                                     std::pair{"token-endpoint", &p.token_endpoint},
                                     std::pair{"userinfo-endpoint", &p.userinfo_endpoint},
                                     std::pair{"emails-endpoint", &p.emails_endpoint}}) {
      if (!value->empty()) out << key << " = " << toml_text(*value) << "\n";
    }
    out << "client-id = " << toml_text(p.client_id) << "\n";
    out << "client-secret-file = \"<redacted>\"\n";
    out << "scopes = [";
    for (std::size_t i = 0; i < p.scopes.size(); ++i)
      out << (i ? ", " : "") << toml_text(p.scopes[i]);
    out << "]\nlabel = " << toml_text(p.label) << "\nsignup = " << (p.signup ? "true" : "false")
        << "\nkeep-tokens = " << (p.keep_tokens ? "true" : "false") << "\n";
    if (p.kind == UpstreamKind::oauth2) {
      out << "subject-claim = " << toml_text(p.claims.subject) << "\n";
      out << "email-claim = " << toml_text(p.claims.email) << "\n";
      out << "email-verified-claim = " << toml_text(p.claims.email_verified) << "\n";
      out << "name-claim = " << toml_text(p.claims.name) << "\n";
      out << "fallback-name-claim = " << toml_text(p.claims.fallback_name) << "\n";
    }
  }
  return out.str();
}

}  // namespace authd
