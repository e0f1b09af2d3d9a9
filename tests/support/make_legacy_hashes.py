#!/usr/bin/python3
"""Password hashes made by implementations independent of authd, for
tests/unit/legacy_hash_test.cpp (interface.md 10.5), and the other direction:
checking authd's hashes with them.

  make_legacy_hashes.py            prints fresh vectors, one a line:
                                   source TAB password TAB hash
  make_legacy_hashes.py --verify   reads "password TAB hash" lines on stdin and
                                   prints, for each, 1 when the independent
                                   implementation verifies it, else 0

The committed fixture tests/support/legacy_hashes.tsv is this script's output
(regenerate: tests/support/make_legacy_hashes.py > tests/support/legacy_hashes.tsv);
the unit test also runs the script afresh. Costs are kept tiny: the vectors
test formats, not strength.

Makers: passlib (Debian python3-passlib; its argon2 through python3-argon2,
its bcrypt through python3-bcrypt, its scrypt and PBKDF2 through hashlib,
that is OpenSSL), argon2-cffi's low-level API for version 16, python3-bcrypt
directly, Django's format built with hashlib.pbkdf2_hmac (as Django does), and
mkpasswd (Debian's whois package; libxcrypt, the library authd verifies crypt
formats with, but another program's settings and salts). Exit status 3 when a
module is missing.
"""
import base64
import hashlib
import os
import subprocess
import sys

try:
    import argon2.low_level as argon2_ll
    import bcrypt
    from passlib import hash as ph
except ImportError as missing:
    print("missing: %s (apt-get install python3-passlib python3-bcrypt python3-argon2)" % missing,
          file=sys.stderr)
    sys.exit(3)

PASSWORDS = ["correct horse battery staple", "p\u00e4ssw\u00f6rd \u2603", "x"]


def django_pbkdf2(algorithm, password, iterations):
    """Django's PBKDF2PasswordHasher.encode: the salt's text as its bytes, the
    derived key as long as the digest, in standard base 64."""
    salt = base64.b32encode(os.urandom(10)).decode().rstrip("=")[:12]
    key = hashlib.pbkdf2_hmac(algorithm, password.encode(), salt.encode(), iterations)
    return "pbkdf2_%s$%d$%s$%s" % (algorithm, iterations, salt,
                                   base64.b64encode(key).decode())


def mkpasswd(method, rounds, password):
    command = ["mkpasswd", "-m", method, "-s"]
    if rounds:
        command[3:3] = ["-R", str(rounds)]
    done = subprocess.run(command, input=password.encode(), capture_output=True, check=True)
    return done.stdout.decode().strip()


def argon2_v16(password):
    return argon2_ll.hash_secret(password.encode(), os.urandom(16), time_cost=1, memory_cost=64,
                                 parallelism=2, hash_len=32, type=argon2_ll.Type.ID,
                                 version=16).decode()


def vectors(password):
    yield "passlib argon2id", ph.argon2.using(type="ID", memory_cost=64, rounds=1,
                                              parallelism=1).hash(password)
    yield "passlib argon2id p=4", ph.argon2.using(type="ID", memory_cost=128, rounds=2,
                                                  parallelism=4).hash(password)
    yield "passlib argon2i", ph.argon2.using(type="I", memory_cost=64, rounds=1,
                                             parallelism=1).hash(password)
    yield "passlib argon2d p=2", ph.argon2.using(type="D", memory_cost=64, rounds=1,
                                                 parallelism=2).hash(password)
    yield "argon2-cffi argon2id v=16", argon2_v16(password)
    yield "passlib bcrypt 2b", ph.bcrypt.using(rounds=4, ident="2b").hash(password)
    yield "passlib bcrypt 2a", ph.bcrypt.using(rounds=5, ident="2a").hash(password)
    yield "passlib bcrypt 2y", ph.bcrypt.using(rounds=4, ident="2y").hash(password)
    yield "python-bcrypt 2b", bcrypt.hashpw(password.encode(),
                                             bcrypt.gensalt(rounds=4, prefix=b"2b")).decode()
    yield "python-bcrypt 2a", bcrypt.hashpw(password.encode(),
                                             bcrypt.gensalt(rounds=4, prefix=b"2a")).decode()
    yield "passlib pbkdf2-sha256", ph.pbkdf2_sha256.using(rounds=1000).hash(password)
    yield "passlib pbkdf2-sha512", ph.pbkdf2_sha512.using(rounds=1000).hash(password)
    yield "django pbkdf2_sha256", django_pbkdf2("sha256", password, 1000)
    yield "django pbkdf2_sha1", django_pbkdf2("sha1", password, 1000)
    yield "passlib django_pbkdf2_sha256", ph.django_pbkdf2_sha256.using(rounds=1000).hash(password)
    yield "passlib scrypt", ph.scrypt.using(rounds=6, block_size=8).hash(password)
    yield "passlib scrypt p=2", ph.scrypt.using(rounds=4, block_size=4,
                                                parallelism=2).hash(password)
    # passlib's own $7$ salts are base 64 with '+', which libxcrypt refuses
    # (and authd with it): a salt of crypt's alphabet, as crypt writes them.
    salt = base64.b64encode(os.urandom(18)).decode().replace("+", ".")
    yield "passlib scrypt $7$", ph.scrypt.using(rounds=6, block_size=8, ident="$7$",
                                                salt=salt.encode()).hash(password)
    yield "passlib sha256_crypt", ph.sha256_crypt.using(rounds=1000).hash(password)
    yield "passlib sha256_crypt 5000", ph.sha256_crypt.using(rounds=5000).hash(password)
    yield "passlib sha512_crypt", ph.sha512_crypt.using(rounds=1000).hash(password)
    yield "mkpasswd bcrypt", mkpasswd("bcrypt", 4, password)
    yield "mkpasswd sha512crypt", mkpasswd("sha512crypt", 1000, password)
    yield "mkpasswd sha256crypt", mkpasswd("sha256crypt", None, password)
    yield "mkpasswd scrypt", mkpasswd("scrypt", 6, password)


def verify(password, stored):
    """The independent implementation's answer for one hash."""
    handlers = {
        "$argon2": ph.argon2, "$2": ph.bcrypt, "$7$": ph.scrypt, "$scrypt$": ph.scrypt,
        "$pbkdf2-sha256$": ph.pbkdf2_sha256, "$pbkdf2-sha512$": ph.pbkdf2_sha512,
        "pbkdf2_sha256$": ph.django_pbkdf2_sha256, "pbkdf2_sha1$": ph.django_pbkdf2_sha1,
        "$5$": ph.sha256_crypt, "$6$": ph.sha512_crypt,
    }
    for prefix, handler in handlers.items():
        if stored.startswith(prefix):
            try:
                return handler.verify(password, stored)
            except ValueError:
                return False
    return False


def main():
    if sys.argv[1:] == ["--verify"]:
        for line in sys.stdin.read().splitlines():
            password, stored = line.split("\t")
            print(1 if verify(password, stored) else 0)
        return
    for password in PASSWORDS:
        for source, made in vectors(password):
            print("%s\t%s\t%s" % (source, password, made))


if __name__ == "__main__":
    main()
