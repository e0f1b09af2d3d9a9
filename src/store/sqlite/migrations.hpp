// The versioned schema of the SQLite store. A migration is never edited once
// released: a change is a new entry at the end.
#pragma once

#include <span>

namespace authd::sqlite {

struct Migration {
  int version;
  const char* description;
  const char* sql;
};

std::span<const Migration> migrations();

}  // namespace authd::sqlite
