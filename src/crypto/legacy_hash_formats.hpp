// The readers of each family of hash crypto/legacy_hash_parse.hpp reads
// (interface.md 10.5), in the same strictness. A take_*_cost reads the
// family's kind off the front of `text`, consuming it: nothing, with
// `problem` empty, when `text` is not of the family, or with `problem`
// saying what is wrong. A read_* reads a whole hash of its family into
// `out`: false with `problem` when it cannot. Internal to
// crypto/legacy_hash_parse.cpp.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "crypto/legacy_hash_cost.hpp"
#include "crypto/legacy_hash_parse.hpp"

namespace authd::legacy_hash {

// "$argon2id$v=19$m=N,t=N,p=N", the whole of `kind`, written as every
// argon2 library writes it and with numbers they all accept.
std::optional<Argon2Kind> read_argon2_kind(std::string_view kind, std::string& problem);

// "$argon2X$v=N$m=N,t=N,p=N$salt$digest".
bool read_argon2(std::string_view hash, ParsedHash& out, std::string& problem);

// "$2b$12", consumed.
std::optional<BcryptCost> take_bcrypt_cost(std::string_view& text, std::string& problem);

// "$" then 22 characters of salt and 31 of digest. bcrypt encodes 16 and 23
// bytes in them: the bits left over at the end of each must be zero, or no
// implementation would ever write (nor match) this string.
bool read_bcrypt(std::string_view hash, ParsedHash& out, std::string& problem);

// "$7$" and its 11 characters of N, r and p, or "$scrypt$ln=N,r=N,p=N",
// consumed, and what scrypt itself requires of them (RFC 7914).
std::optional<ScryptCost> take_scrypt_cost(std::string_view& text, std::string& problem);

// "$7$" (crypt's form, read whole by libxcrypt) or "$scrypt$" (passlib's,
// its salt and digest decoded).
bool read_scrypt(std::string_view hash, ParsedHash& out, std::string& problem);

// "pbkdf2_sha256$600000" (Django) or "$pbkdf2-sha512$25000" (passlib), consumed.
std::optional<Pbkdf2Cost> take_pbkdf2_cost(std::string_view& text, std::string& problem);

// Django: "$salt$digest", the salt used as its own bytes (Django's are
// letters and digits; any character but '$' is taken), the digest in
// standard base 64 with padding. passlib: both in its base 64.
bool read_pbkdf2(std::string_view hash, ParsedHash& out, std::string& problem);

// "$5$" or "$6$", then "rounds=N$" or nothing (5000 rounds), consumed.
std::optional<ShaCryptCost> take_sha_crypt_cost(std::string_view& text, std::string& problem);

// "$salt$digest": up to 16 salt characters (SHA-crypt uses no more),
// none that libxcrypt refuses, and the digest in 43 or 86 characters.
bool read_sha_crypt(std::string_view hash, ParsedHash& out, std::string& problem);

}  // namespace authd::legacy_hash
