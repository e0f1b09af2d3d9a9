// The parameters of one PostgreSQL statement, in the text (or, for digests,
// binary) form libpq sends them in.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "crypto/random.hpp"

namespace authd::postgres {

// The parameters of one statement ($1, $2, ... in the order added).
class Params {
 public:
  Params& text(std::string_view value);
  Params& text(const std::string& value) { return text(std::string_view(value)); }
  Params& text(const char* value) { return text(std::string_view(value)); }
  Params& text(const std::optional<std::string>& value);
  Params& integer(std::int64_t value);
  Params& integer(const std::optional<std::int64_t>& value);
  Params& boolean(bool value);
  Params& digest(const Sha256Digest& value);  // BYTEA, sent in binary
  Params& digest(const std::optional<Sha256Digest>& value);
  // A text[] in PostgreSQL's array input syntax, each element quoted.
  Params& text_array(std::span<const std::string> values);
  // The same, a missing value as NULL.
  Params& text_array(std::span<const std::optional<std::string>> values);
  // A bytea[] in the same syntax, each digest in bytea's hex form.
  Params& digest_array(std::span<const Sha256Digest> values);

  int count() const { return static_cast<int>(values_.size()); }
  // The arrays libpq's PQsendQueryPrepared takes.
  std::vector<const char*> pointers() const;
  const int* lengths() const { return lengths_.data(); }
  const int* formats() const { return formats_.data(); }

 private:
  Params& add(std::optional<std::string> value, int format);

  std::vector<std::optional<std::string>> values_;
  std::vector<int> lengths_;
  std::vector<int> formats_;  // 0 text, 1 binary
};

}  // namespace authd::postgres
