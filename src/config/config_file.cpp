#include "config/config_file.hpp"

#include <regex>
#include <sstream>
#include <vector>

#include <toml++/toml.h>
#include <CLI/CLI.hpp>

namespace authd {
namespace {

constexpr std::string_view kRedacted = "<redacted>";

// What TOML type a key takes, from the option it stands for.
enum class Kind { string, integer, number, boolean, list };

Kind kind_of(const CLI::Option& option) {
  if (option.get_items_expected_max() == 0) return Kind::boolean;  // a flag
  if (option.get_items_expected_max() > 1) return Kind::list;
  std::string type = option.get_type_name();
  type = type.substr(0, type.find(':'));  // "UINT:INT in [1 - 64]" -> "UINT"
  if (type == "UINT" || type == "INT") return Kind::integer;
  if (type == "FLOAT" || type == "NUMBER") return Kind::number;
  return Kind::string;
}

std::string_view kind_name(Kind kind) {
  switch (kind) {
    case Kind::string:
      return "a string";
    case Kind::integer:
      return "an integer";
    case Kind::number:
      return "a number";
    case Kind::boolean:
      return "true or false";
    case Kind::list:
      return "an array of strings";
  }
  return "";
}

// The option's key: its first long name ("listen" for --listen); empty for
// options that are not settings (help, --config itself, positionals).
std::string key_of(const CLI::Option& option) {
  if (option.get_lnames().empty()) return "";
  const std::string& name = option.get_lnames().front();
  if (name == "help" || name == "config") return "";
  return name;
}

const CLI::Option* find_key(const CLI::App& app, const std::string& key) {
  for (const CLI::Option* option : app.get_options()) {
    if (key_of(*option) == key) return option;
  }
  return nullptr;
}

// The TOML value as the text a flag would carry; nothing when its type does
// not fit `kind`.
std::optional<std::string> as_flag_text(const toml::node& node, Kind kind) {
  switch (kind) {
    case Kind::string:
      if (auto v = node.value_exact<std::string>()) return *v;
      return std::nullopt;
    case Kind::integer:
      if (auto v = node.value_exact<std::int64_t>()) return std::to_string(*v);
      return std::nullopt;
    case Kind::number:
      if (auto v = node.value_exact<std::int64_t>()) return std::to_string(*v);
      if (auto v = node.value_exact<double>()) {
        std::ostringstream out;
        out << *v;
        return out.str();
      }
      return std::nullopt;
    case Kind::boolean:
      if (auto v = node.value_exact<bool>()) return *v ? "true" : "false";
      return std::nullopt;
    case Kind::list: {
      const toml::array* array = node.as_array();
      if (array == nullptr) return std::nullopt;
      std::string joined;
      for (const toml::node& item : *array) {
        auto text = item.value_exact<std::string>();
        // Items reach the option joined by ',' (its delimiter).
        if (!text || text->find(',') != std::string::npos) return std::nullopt;
        if (!joined.empty()) joined += ',';
        joined += *text;
      }
      return joined;
    }
  }
  return std::nullopt;
}

std::string toml_string(std::string_view text) {
  std::ostringstream out;
  out << toml::value<std::string>(std::string(text));
  return out.str();
}

bool is_true(std::string_view text) {
  return text == "true" || text == "1" || text == "on" || text == "yes";
}

// The option's effective value, as the strings it was given (or its default).
std::vector<std::string> values_of(const CLI::Option& option, Kind kind) {
  if (option.count() > 0) return option.results();
  std::string text = option.get_default_str();
  if (kind != Kind::list) return {text};
  std::vector<std::string> items;
  if (text.size() >= 2 && text.front() == '[' && text.back() == ']')
    text = text.substr(1, text.size() - 2);
  std::istringstream in(text);
  std::string item;
  while (std::getline(in, item, ',')) {
    if (!item.empty()) items.push_back(item);
  }
  return items;
}

// `text` after the option's validators that rewrite values (each item of a
// list on its own, as CLI11 applies them).
std::string as_transformed(CLI::Option& option, const std::string& text, Kind kind) {
  std::vector<std::string> items;
  if (kind == Kind::list) {
    std::istringstream in(text);
    std::string item;
    while (std::getline(in, item, ',')) items.push_back(item);
  } else {
    items.push_back(text);
  }
  std::string joined;
  for (std::string& item : items) {
    for (int index = 0;; ++index) {
      CLI::Validator* validator = nullptr;
      try {
        validator = option.get_validator(index);
      } catch (const CLI::OptionNotFound&) {
        break;
      }
      (*validator)(item);  // already accepted by default_val()
    }
    joined += (joined.empty() ? "" : ",") + item;
  }
  return joined;
}

}  // namespace

bool is_secret_key(std::string_view key) {
  // A duration whose name says "secret" (interface.md 17.3): not one.
  if (key == "oidc-secret-overlap") return false;
  return key.find("password") != std::string_view::npos ||
         key.find("secret") != std::string_view::npos;
}

std::string redact_url_secrets(std::string_view value) {
  std::string text(value);
  // scheme://user:password@host... The password may hold '/', '?', '#' or
  // '@' unencoded (people paste them so), so the authority cannot be cut at
  // the first of those: when the user name (up to the first ':') is a plain
  // name, everything from that ':' to the LAST '@' is redacted. This may
  // hide more than the password (an '@' later in the path or query), never
  // less.
  auto scheme = text.find("://");
  if (scheme != std::string::npos) {
    auto authority_start = scheme + 3;
    auto colon = text.find(':', authority_start);
    auto delimiter = text.find_first_of("/?#@", authority_start);
    auto at = text.rfind('@');
    if (colon != std::string::npos && at != std::string::npos && colon < at &&
        (delimiter == std::string::npos || colon < delimiter))
      text.replace(colon + 1, at - colon - 1, kRedacted);
  }
  // password=... as a URL query parameter or a libpq keyword/value pair.
  static const std::regex kPasswordParameter(R"(((^|[?&;\s])[a-z_]*password=)('[^']*'|[^&;\s]*))",
                                             std::regex::icase);
  return std::regex_replace(text, kPasswordParameter, "$1<redacted>");
}

void apply_config_file(const std::string& path, const CLI::App& known, CLI::App& command) {
  toml::table table;
  try {
    table = toml::parse_file(path);
  } catch (const toml::parse_error& e) {
    std::ostringstream message;
    message << path << ":" << e.source().begin.line << ":" << e.source().begin.column << ": "
            << e.description();
    throw ConfigFileError(message.str());
  } catch (const std::exception& e) {
    throw ConfigFileError(path + ": " + e.what());
  }
  for (const auto& [toml_key, node] : table) {
    std::string key(toml_key.str());
    if (key == "upstream") continue;  // [[upstream]]: config/upstream_config.hpp
    const CLI::Option* reference = find_key(known, key);
    if (reference == nullptr) {
      std::ostringstream message;
      message << path << ": unknown key '" << key
              << "' (keys are the long flag names of `authd serve`, e.g. listen, "
                 "argon2-memory-kib; see `authd config`)";
      throw ConfigFileError(message.str());
    }
    Kind kind = kind_of(*reference);
    std::optional<std::string> text = as_flag_text(node, kind);
    if (!text) {
      std::ostringstream message;
      message << path << ": key '" << key << "' must be " << kind_name(kind) << ", not "
              << node.type();
      throw ConfigFileError(message.str());
    }
    CLI::Option* target = command.get_option_no_throw("--" + key);
    if (target == nullptr || target->count() > 0) continue;  // not ours, or a flag/env won
    if (kind == Kind::list && text->empty()) continue;       // [] is the default
    if (*text == target->get_default_str()) continue;        // the default: nothing to do
    try {
      target->run_callback_for_default();
      target->default_val(*text);
      // `authd config` shows the value as the option stored it: a transform
      // (such as the origins' normalisation) may have rewritten it.
      target->default_str(as_transformed(*target, *text, kind));
    } catch (const CLI::Error& e) {
      std::ostringstream message;
      message << path << ": key '" << key << "': " << e.what();
      throw ConfigFileError(message.str());
    }
  }
}

std::string effective_config(const CLI::App& command) {
  std::ostringstream out;
  out << "# authd's effective configuration: flags > environment > file > defaults.\n"
         "# Secrets are shown as \"<redacted>\". Usable as a --config file.\n";
  for (const CLI::Option* option : command.get_options()) {
    std::string key = key_of(*option);
    if (key.empty()) continue;
    Kind kind = kind_of(*option);
    std::vector<std::string> values = values_of(*option, kind);
    out << "\n# " << option->get_description();
    if (!option->get_envname().empty()) out << " [" << option->get_envname() << "]";
    out << "\n" << key << " = ";
    std::string value = values.empty() ? "" : values.back();
    if (is_secret_key(key) && !value.empty()) {
      out << toml_string(kRedacted);
    } else if (kind == Kind::list) {
      out << "[";
      for (std::size_t i = 0; i < values.size(); ++i)
        out << (i ? ", " : "") << toml_string(redact_url_secrets(values[i]));
      out << "]";
    } else if (kind == Kind::boolean) {
      out << (is_true(value) ? "true" : "false");
    } else if ((kind == Kind::integer || kind == Kind::number) &&
               std::regex_match(value, std::regex(R"(-?[0-9]+(\.[0-9]+)?)"))) {
      out << value;
    } else {
      out << toml_string(redact_url_secrets(value));
    }
    out << "\n";
  }
  return out.str();
}

}  // namespace authd
