// A thin RAII layer over the SQLite C API: one Connection per database
// thread, prepared statements cached per connection, bound parameters only.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>

#include "crypto/random.hpp"

struct sqlite3;
struct sqlite3_stmt;

namespace authd::sqlite {

// A prepared statement in use; resets itself (and drops its bindings) when
// it goes out of scope so that the cached statement can be used again.
class Statement {
 public:
  Statement(sqlite3* db, sqlite3_stmt* stmt) : db_(db), stmt_(stmt) {}
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;
  ~Statement();

  // Parameters are numbered from 1, as in "?1".
  Statement& bind(int index, std::string_view text);
  Statement& bind(int index, const std::string& text) {
    return bind(index, std::string_view(text));
  }
  Statement& bind(int index, const char* text) { return bind(index, std::string_view(text)); }
  Statement& bind(int index, std::int64_t value);
  Statement& bind(int index, const std::optional<std::string>& text);
  Statement& bind(int index, const std::optional<std::int64_t>& value);
  Statement& bind(int index, const Sha256Digest& digest);
  Statement& bind(int index, const std::optional<Sha256Digest>& digest);

  bool step();  // true while a row is available; throws StoreError on failure
  void run();   // steps a statement that returns no rows

  std::string text(int column) const;
  std::optional<std::string> optional_text(int column) const;
  std::int64_t integer(int column) const;
  std::optional<std::int64_t> optional_integer(int column) const;
  bool boolean(int column) const { return integer(column) != 0; }
  Sha256Digest digest(int column) const;
  std::optional<Sha256Digest> optional_digest(int column) const;

 private:
  sqlite3* db_;
  sqlite3_stmt* stmt_;
};

class Connection {
 public:
  // Opens (creating if needed) the database file with authd's pragmas:
  // WAL, synchronous=FULL, foreign keys, a busy timeout; `cache_kib`, when
  // not 0, sets the page cache's size (else SQLite's default, 2,000 KiB).
  explicit Connection(const std::string& path, std::size_t cache_kib = 0);
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;
  ~Connection();

  // `sql` must be a string literal: the cache is keyed by its address.
  Statement prepare(const char* sql);
  void execute(const char* sql);  // one-off statements (pragmas, BEGIN, DDL)
  std::int64_t last_insert_id() const;
  int changes() const;
  bool in_transaction() const;  // false once SQLite has rolled a transaction back by itself
  sqlite3* handle() const { return db_; }

 private:
  sqlite3* db_ = nullptr;
  std::unordered_map<const char*, sqlite3_stmt*> cache_;
};

// Rolls back the connection's transaction, if SQLite has not already: after
// a failure, when nothing more can be undone or reported.
void rollback_quietly(Connection& connection);

// Throws StoreError with SQLite's message; "busy" errors carry that word so
// the store can report them as unavailable rather than failed.
[[noreturn]] void fail(sqlite3* db, int code, std::string_view what);

}  // namespace authd::sqlite
