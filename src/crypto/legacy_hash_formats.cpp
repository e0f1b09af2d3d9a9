#include "crypto/legacy_hash_formats.hpp"

#include <sodium.h>

#include "crypto/legacy_hash_text.hpp"

namespace authd::legacy_hash {

namespace {

// "$salt$digest" after an argon2 kind: standard base 64 without padding.
bool read_argon2_rest(std::string_view rest, ParsedHash& out, std::string& problem) {
  if (!take_text(rest, "$")) return (problem = "argon2 hash has no salt"), false;
  std::string_view salt = take_field(rest, '$');
  if (!take_text(rest, "$")) return (problem = "argon2 hash has no digest"), false;
  constexpr int kVariant = sodium_base64_VARIANT_ORIGINAL_NO_PADDING;
  auto salt_bytes = decode_base64(salt, kVariant, 1024);
  if (!salt_bytes || salt_bytes->size() < 8)
    return (problem = "argon2 salt is not base 64 of at least 8 bytes"), false;
  auto digest = decode_base64(rest, kVariant, 1024);
  if (!digest || digest->size() < 16)
    return (problem = "argon2 digest is not base 64 of at least 16 bytes"), false;
  out.salt = std::move(*salt_bytes);
  out.digest = std::move(*digest);
  return true;
}

// What every argon2 library requires of the numbers of a kind.
bool check_argon2_kind(const Argon2Kind& kind, std::string& problem) {
  if (kind.version != 16 && kind.version != 19) {
    problem = "argon2 version is neither 16 nor 19";
  } else if (kind.iterations < 1) {
    problem = "argon2 passes t must be at least 1";
  } else if (kind.lanes < 1 || kind.lanes > 0xFFFFFF) {
    problem = "argon2 lanes p must be 1 to 16777215";
  } else if (kind.memory_kib < 8 * kind.lanes) {
    problem = "argon2 memory m must be at least 8 KiB per lane";
  }
  return problem.empty();
}

}  // namespace

std::optional<Argon2Kind> read_argon2_kind(std::string_view kind, std::string& problem) {
  std::optional<Argon2Kind> parsed = parse_argon2_kind(kind);
  if (!parsed) {
    problem = "argon2 parameters are not v=N$m=N,t=N,p=N";
    return std::nullopt;
  }
  // The PHC string format writes numbers without leading zeros; so does
  // every argon2 library, and the kind must read back as it is written.
  if (hash_kind_text(*parsed) != kind) {
    problem = "argon2 parameters have leading zeros";
    return std::nullopt;
  }
  if (!check_argon2_kind(*parsed, problem)) return std::nullopt;
  return parsed;
}

bool read_argon2(std::string_view hash, ParsedHash& out, std::string& problem) {
  // The kind ends at the fourth '$': "$argon2id$v=19$m=..,t=..,p=..$salt$digest".
  std::size_t end = 0;
  for (int i = 0; i < 3 && end != std::string_view::npos; ++i) end = hash.find('$', end + 1);
  if (end == std::string_view::npos) {
    problem = "argon2 hash is not $argon2X$v=N$m=N,t=N,p=N$salt$digest";
    return false;
  }
  std::optional<Argon2Kind> kind = read_argon2_kind(hash.substr(0, end), problem);
  if (!kind) return false;
  out.cost = *kind;
  return read_argon2_rest(hash.substr(end), out, problem);
}

namespace {

std::size_t bcrypt_index(char c) { return kBcryptAlphabet.find(c); }

}  // namespace

// "$2b$12", consumed.
std::optional<BcryptCost> take_bcrypt_cost(std::string_view& text, std::string& problem) {
  BcryptCost cost;
  if (text.size() < 4 || !take_text(text, "$2")) return std::nullopt;
  cost.variant = text[0];
  if ((cost.variant != 'a' && cost.variant != 'b' && cost.variant != 'y') || text[1] != '$') {
    problem = "bcrypt variants other than $2a$, $2b$ and $2y$ are not supported";
    return std::nullopt;
  }
  text.remove_prefix(2);
  if (text.size() < 2 || text[0] < '0' || text[0] > '9' || text[1] < '0' || text[1] > '9') {
    problem = "bcrypt cost is not two digits";
    return std::nullopt;
  }
  cost.cost = static_cast<unsigned>((text[0] - '0') * 10 + (text[1] - '0'));
  text.remove_prefix(2);
  if (cost.cost < 4) {
    problem = "bcrypt cost is below 4";
    return std::nullopt;
  }
  return cost;
}

// "$" then 22 characters of salt and 31 of digest. bcrypt encodes 16 and 23
// bytes in them: the bits left over at the end of each must be zero, or no
// implementation would ever write (nor match) this string.
bool read_bcrypt(std::string_view hash, ParsedHash& out, std::string& problem) {
  std::optional<BcryptCost> cost = take_bcrypt_cost(hash, problem);
  if (!cost) return false;
  out.cost = *cost;
  if (!take_text(hash, "$") || hash.size() != 53)
    return (problem = "bcrypt salt and digest are not 53 characters"), false;
  if (!all_in(hash, kBcryptAlphabet))
    return (problem = "bcrypt salt or digest has a character outside bcrypt's alphabet"), false;
  if (bcrypt_index(hash[21]) % 16 != 0 || bcrypt_index(hash[52]) % 4 != 0)
    return (problem = "bcrypt salt or digest has stray bits at its end"), false;
  return true;
}

namespace {

// The 11 characters of "$7$"'s N, r and p (crypt's base 64, least
// significant first), consumed.
std::optional<ScryptCost> take_crypt_scrypt_cost(std::string_view& text, std::string& problem) {
  if (!take_text(text, "$7$")) return std::nullopt;
  if (text.size() < 11 || !all_in(text.substr(0, 11), kCryptAlphabet)) {
    problem = "scrypt $7$ parameters are not 11 characters of crypt's alphabet";
    return std::nullopt;
  }
  auto decode = [&](std::size_t at, std::size_t count) {
    std::uint64_t value = 0;
    for (std::size_t i = 0; i < count; ++i) value |= kCryptAlphabet.find(text[at + i]) << (6 * i);
    return value;
  };
  ScryptCost cost{.crypt_form = true,
                  .log2_n = static_cast<unsigned>(decode(0, 1)),
                  .r = decode(1, 5),
                  .p = decode(6, 5)};
  text.remove_prefix(11);
  return cost;
}

// "$scrypt$ln=16,r=8,p=1", consumed.
std::optional<ScryptCost> take_phc_scrypt_cost(std::string_view& text, std::string& problem) {
  if (!take_text(text, "$scrypt$")) return std::nullopt;
  std::optional<std::uint64_t> ln, r, p;
  if (!take_text(text, "ln=") || !(ln = take_decimal(text)) || !take_text(text, ",r=") ||
      !(r = take_decimal(text)) || !take_text(text, ",p=") || !(p = take_decimal(text))) {
    problem = "scrypt parameters are not ln=N,r=N,p=N";
    return std::nullopt;
  }
  if (*ln > 63) {
    problem = "scrypt ln must be 1 to 63";
    return std::nullopt;
  }
  return ScryptCost{.crypt_form = false, .log2_n = static_cast<unsigned>(*ln), .r = *r, .p = *p};
}

// What scrypt itself requires (RFC 7914): 1 < N < 2^(16 r), r and p at least
// 1 and r x p under 2^30.
bool check_scrypt_cost(const ScryptCost& cost, std::string& problem) {
  if (cost.log2_n < 1) {
    problem = "scrypt N must be at least 2";
  } else if (cost.r < 1 || cost.p < 1 || cost.r >= (1u << 30) || cost.p >= (1u << 30)) {
    problem = "scrypt r and p must be 1 to 2^30 - 1";
  } else if (cost.log2_n >= 16 * cost.r) {
    problem = "scrypt N must be below 2^(16 x r)";
  }
  return problem.empty();
}

// "$7$": then a salt of crypt's characters (libxcrypt takes no others;
// passlib may write '+' there, which libxcrypt refuses), '$', and the
// 32-byte digest in 43 characters.
bool read_crypt_scrypt_rest(std::string_view rest, std::string& problem) {
  std::string_view salt = take_field(rest, '$');
  if (salt.empty() || salt.size() > 64 || !all_in(salt, kCryptAlphabet))
    return (problem = "scrypt $7$ salt is not 1 to 64 characters of crypt's alphabet"), false;
  if (!take_text(rest, "$") || rest.size() != 43 || !all_in(rest, kCryptAlphabet))
    return (problem = "scrypt $7$ digest is not 43 characters of crypt's alphabet"), false;
  return true;
}

// "$scrypt$": "$salt$digest" in passlib's base 64. passlib's digest is
// always 32 bytes, and so must this one be: scrypt ends in PBKDF2, whose
// shorter outputs are prefixes of its longer ones, so a cut digest would
// still match, with fewer bits to guess.
bool read_phc_scrypt_rest(std::string_view rest, ParsedHash& out, std::string& problem) {
  if (!take_text(rest, "$")) return (problem = "scrypt hash has no salt"), false;
  auto salt = decode_passlib_base64(take_field(rest, '$'), 1024);
  if (!salt) return (problem = "scrypt salt is not base 64"), false;
  std::optional<std::vector<unsigned char>> digest;
  if (!take_text(rest, "$") || !(digest = decode_passlib_base64(rest, 32)) || digest->size() != 32)
    return (problem = "scrypt digest is not base 64 of 32 bytes"), false;
  out.salt = std::move(*salt);
  out.digest = std::move(*digest);
  return true;
}

}  // namespace

std::optional<ScryptCost> take_scrypt_cost(std::string_view& text, std::string& problem) {
  std::optional<ScryptCost> cost = text.starts_with("$7$") ? take_crypt_scrypt_cost(text, problem)
                                                           : take_phc_scrypt_cost(text, problem);
  if (!cost || !check_scrypt_cost(*cost, problem)) return std::nullopt;
  return cost;
}

bool read_scrypt(std::string_view hash, ParsedHash& out, std::string& problem) {
  std::optional<ScryptCost> cost = take_scrypt_cost(hash, problem);
  if (!cost) return false;
  out.cost = *cost;
  return cost->crypt_form ? read_crypt_scrypt_rest(hash, problem)
                          : read_phc_scrypt_rest(hash, out, problem);
}

// "pbkdf2_sha256$600000" (Django) or "$pbkdf2-sha512$25000" (passlib), consumed.
std::optional<Pbkdf2Cost> take_pbkdf2_cost(std::string_view& text, std::string& problem) {
  Pbkdf2Cost cost;
  if (take_text(text, "pbkdf2_sha256$")) {
    cost = {.django = true, .digest = Pbkdf2Digest::sha256};
  } else if (take_text(text, "pbkdf2_sha1$")) {
    cost = {.django = true, .digest = Pbkdf2Digest::sha1};
  } else if (take_text(text, "$pbkdf2-sha256$")) {
    cost = {.django = false, .digest = Pbkdf2Digest::sha256};
  } else if (take_text(text, "$pbkdf2-sha512$")) {
    cost = {.django = false, .digest = Pbkdf2Digest::sha512};
  } else {
    return std::nullopt;
  }
  std::optional<std::uint64_t> iterations = take_decimal(text);
  if (!iterations || *iterations < 1) {
    problem = "PBKDF2 iterations are not a number of at least 1";
    return std::nullopt;
  }
  cost.iterations = *iterations;
  return cost;
}

// Django: "$salt$digest", the salt used as its own bytes (Django's are
// letters and digits; any character but '$' is taken), the digest in
// standard base 64 with padding. passlib: both in its base 64.
bool read_pbkdf2(std::string_view hash, ParsedHash& out, std::string& problem) {
  std::optional<Pbkdf2Cost> cost = take_pbkdf2_cost(hash, problem);
  if (!cost) return false;
  out.cost = *cost;
  if (!take_text(hash, "$")) return (problem = "PBKDF2 hash has no salt"), false;
  std::string_view salt = take_field(hash, '$');
  if (!take_text(hash, "$")) return (problem = "PBKDF2 hash has no digest"), false;
  std::size_t size = pbkdf2_digest_size(cost->digest);
  std::optional<std::vector<unsigned char>> digest;
  if (cost->django) {
    if (salt.empty() || salt.size() > 256)
      return (problem = "PBKDF2 salt is not 1 to 256 characters"), false;
    out.salt.assign(salt.begin(), salt.end());
    digest = decode_base64(hash, sodium_base64_VARIANT_ORIGINAL, size);
  } else {
    auto salt_bytes = decode_passlib_base64(salt, 1024);
    if (!salt_bytes) return (problem = "PBKDF2 salt is not base 64"), false;
    out.salt = std::move(*salt_bytes);
    digest = decode_passlib_base64(hash, size);
  }
  if (!digest || digest->size() != size)
    return (problem =
                "PBKDF2 digest is not base 64 of the digest's " + std::to_string(size) + " bytes"),
           false;
  out.digest = std::move(*digest);
  return true;
}

// "$5$" or "$6$", then "rounds=N$" or nothing (5000 rounds), consumed.
std::optional<ShaCryptCost> take_sha_crypt_cost(std::string_view& text, std::string& problem) {
  ShaCryptCost cost;
  if (take_text(text, "$6$")) {
    cost.sha512 = true;
  } else if (!take_text(text, "$5$")) {
    return std::nullopt;
  }
  if (!take_text(text, "rounds=")) return cost;
  std::optional<std::uint64_t> rounds = take_decimal(text);
  if (!rounds) {
    problem = "SHA-crypt rounds are not a number";
    return std::nullopt;
  }
  if (*rounds < 1000) {  // libxcrypt refuses them (glibc would write 1000)
    problem = "SHA-crypt rounds are below 1000";
    return std::nullopt;
  }
  cost.rounds = *rounds;
  return cost;
}

// "$salt$digest": up to 16 salt characters (SHA-crypt uses no more),
// none that libxcrypt refuses, and the digest in 43 or 86 characters.
bool read_sha_crypt(std::string_view hash, ParsedHash& out, std::string& problem) {
  bool explicit_rounds = hash.substr(3).starts_with("rounds=");
  std::optional<ShaCryptCost> cost = take_sha_crypt_cost(hash, problem);
  if (!cost) return false;
  out.cost = *cost;
  if (explicit_rounds && !take_text(hash, "$"))
    return (problem = "SHA-crypt rounds are not followed by '$'"), false;
  std::string_view salt = take_field(hash, '$');
  if (salt.size() > 16 || salt.find_first_of("!*:;\\") != std::string_view::npos)
    return (problem = "SHA-crypt salt is not up to 16 characters crypt accepts"), false;
  std::size_t length = cost->sha512 ? 86 : 43;
  if (!take_text(hash, "$") || hash.size() != length || !all_in(hash, kCryptAlphabet))
    return (problem = "SHA-crypt digest is not " + std::to_string(length) +
                      " characters of crypt's alphabet"),
           false;
  return true;
}

}  // namespace authd::legacy_hash
