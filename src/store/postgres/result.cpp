// The rows of one statement (connection.hpp's Result), read from libpq's
// text format.
#include <libpq-fe.h>
#include <sodium.h>

#include <charconv>
#include <cstring>
#include <string_view>

#include "store/postgres/connection.hpp"
#include "store/store.hpp"

namespace authd::postgres {

Result::~Result() {
  if (result_) PQclear(result_);
}

Result& Result::operator=(Result&& other) noexcept {
  if (this != &other) {
    if (result_) PQclear(result_);
    result_ = other.result_;
    other.result_ = nullptr;
  }
  return *this;
}

int Result::rows() const { return PQntuples(result_); }

std::int64_t Result::affected() const {
  const char* text = PQcmdTuples(result_);
  std::int64_t count = 0;
  std::from_chars(text, text + std::strlen(text), count);
  return count;
}

bool Result::is_null(int row, int column) const { return PQgetisnull(result_, row, column) != 0; }

std::string Result::text(int row, int column) const {
  return {PQgetvalue(result_, row, column),
          static_cast<std::size_t>(PQgetlength(result_, row, column))};
}

std::optional<std::string> Result::optional_text(int row, int column) const {
  if (is_null(row, column)) return std::nullopt;
  return text(row, column);
}

std::int64_t Result::integer(int row, int column) const {
  const char* text = PQgetvalue(result_, row, column);
  std::int64_t value = 0;
  auto [end, error] = std::from_chars(text, text + std::strlen(text), value);
  if (error != std::errc()) throw StoreError("not an integer in a result column");
  return value;
}

std::optional<std::int64_t> Result::optional_integer(int row, int column) const {
  if (is_null(row, column)) return std::nullopt;
  return integer(row, column);
}

bool Result::boolean(int row, int column) const {
  return std::strcmp(PQgetvalue(result_, row, column), "t") == 0;
}

std::optional<Sha256Digest> Result::optional_digest(int row, int column) const {
  if (is_null(row, column)) return std::nullopt;
  return digest(row, column);
}

Sha256Digest Result::digest(int row, int column) const {
  // BYTEA in the text format: "\x" then two hex digits a byte.
  std::string_view text(PQgetvalue(result_, row, column));
  Sha256Digest digest{};
  std::size_t length = 0;
  if (!text.starts_with("\\x") ||
      sodium_hex2bin(digest.data(), digest.size(), text.data() + 2, text.size() - 2, nullptr,
                     &length, nullptr) != 0 ||
      length != digest.size())
    throw StoreError("not a SHA-256 digest in a result column");
  return digest;
}

}  // namespace authd::postgres
