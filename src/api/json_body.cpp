#include "api/json_body.hpp"

#include <sodium.h>

#include <unordered_set>
#include <vector>

#include "auth/credentials/email.hpp"

namespace authd {

std::optional<RequestJson> parse_json_object(std::string_view text, std::string& problem) {
  // nlohmann keeps the last of duplicate members silently; the callback sees
  // every key, so track the names of each open object to catch them.
  std::vector<std::unordered_set<std::string>> open_objects;
  bool duplicate = false;
  auto watch = [&](int, RequestJson::parse_event_t event, RequestJson& parsed) {
    using Event = RequestJson::parse_event_t;
    if (event == Event::object_start) {
      open_objects.emplace_back();
    } else if (event == Event::object_end) {
      open_objects.pop_back();
    } else if (event == Event::key && !open_objects.empty()) {
      // Member names are not secrets: a plain copy.
      const WipedString& name = parsed.get_ref<const WipedString&>();
      if (!open_objects.back().emplace(name.data(), name.size()).second) duplicate = true;
    }
    return true;
  };
  // nlohmann's lexer takes a NUL byte for the end of input and would ignore
  // whatever follows it. A raw NUL is never valid JSON (not white space, and
  // control characters inside strings must be escaped), so refuse it here.
  if (text.find('\0') != std::string_view::npos) {
    problem = "body: not valid JSON in UTF-8";
    return std::nullopt;
  }
  RequestJson value;
  try {
    value = RequestJson::parse(text.begin(), text.end(), watch, /*allow_exceptions=*/true,
                               /*ignore_comments=*/false);
  } catch (const RequestJson::exception&) {
    problem = "body: not valid JSON in UTF-8";
    return std::nullopt;
  }
  if (duplicate) {
    problem = "body: duplicate member name";
    return std::nullopt;
  }
  if (!value.is_object()) {
    problem = "body: must be a JSON object";
    return std::nullopt;
  }
  return value;
}

std::optional<std::string> take_string(RequestJson& object, const char* name,
                                       std::string& problem) {
  auto it = object.find(name);
  if (it == object.end() || !it->is_string()) {
    if (problem.empty()) {
      problem = std::string(name) + (it == object.end() ? ": required" : ": must be a string");
    }
    return std::nullopt;
  }
  // A copy, then the parsed node's bytes are wiped: a short string's bytes
  // live in the node itself (no heap buffer of their own), which nlohmann
  // frees with the standard allocator.
  WipedString& stored = it->get_ref<WipedString&>();
  std::string value(stored.data(), stored.size());
  sodium_memzero(stored.data(), stored.size());
  return value;
}

std::optional<std::string> take_optional_string(RequestJson& object, const char* name,
                                                std::string& problem) {
  if (!object.contains(name)) return std::nullopt;
  return take_string(object, name, problem);
}

std::optional<nlohmann::json> take_object(RequestJson& object, const char* name, bool required,
                                          std::string& problem) {
  auto member = object.find(name);
  if (member == object.end()) {
    if (required && problem.empty()) problem = std::string(name) + ": required";
    return std::nullopt;
  }
  if (!member->is_object()) {
    if (problem.empty()) problem = std::string(name) + ": must be an object";
    return std::nullopt;
  }
  WipedString text = member->dump();
  return nlohmann::json::parse(text.begin(), text.end());
}

std::optional<std::string> take_canonical_email(std::string_view body, std::string& problem) {
  auto object = parse_json_object(body, problem);
  if (!object) return std::nullopt;
  auto email = take_string(*object, "email", problem);
  if (!email) return std::nullopt;
  if (!is_valid_email(*email)) {
    problem = "email: not a valid address";
    return std::nullopt;
  }
  return canonical_email(*email);
}

}  // namespace authd
