// Zeroing the secrets held in a parsed JSON value (a token endpoint's
// answer, a sealed set opened again): nlohmann frees its strings without
// zeroing them, so every string in it is wiped first (core/wipe.hpp).
#pragma once

#include <nlohmann/json.hpp>

#include "core/wipe.hpp"

namespace authd {

// Every string in `value`, members and elements at any depth.
inline void wipe_strings(nlohmann::json& value) {
  if (value.is_string()) {
    wipe(value.get_ref<std::string&>());
  } else if (value.is_structured()) {
    for (nlohmann::json& inner : value) wipe_strings(inner);
  }
}

}  // namespace authd
