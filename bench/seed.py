#!/usr/bin/env python3
"""Seeds a migrated authd database for the benchmark.

  seed.py DB USERS PHC_FILE SESSIONS TOKENS_OUT
      SQLite: inserts into DB, in one transaction.
  seed.py --postgres-csv users USERS PHC_FILE
  seed.py --postgres-csv sessions USERS SESSIONS TOKENS_OUT
      PostgreSQL: writes the same rows as CSV to stdout, for
      COPY users (id, email, password_hash, display_name, created_at, updated_at)
        FROM STDIN (FORMAT csv)
      COPY sessions (token_digest, user_id, created_at, expires_at)
        FROM STDIN (FORMAT csv)
      (bytea in its \\x hex form; the sessions' public_id is the column's
      default).

USERS users user1@bench.test .. userN@bench.test, all with the password
"bench password 1", sharing the few precomputed argon2id PHC strings of
PHC_FILE (one a line, made with authd's parameters: no re-hash on login).
SESSIONS live sessions are inserted for random users, exactly as authd
stores them (SHA-256 digest of an "authd_" token); their tokens go to
TOKENS_OUT, one a line (GET /me and POST /logout use them).
"""
import base64
import csv
import hashlib
import os
import random
import sys
import time


def user_id(n):
    return "0190a000-0000-7000-8000-%012d" % n


def user_rows(users, phc_file, now):
    hashes = [line.strip() for line in open(phc_file) if line.strip()]
    for n in range(1, users + 1):
        yield (user_id(n), "user%d@bench.test" % n, hashes[n % len(hashes)], "Bench User %d" % n, now, now)


def session_rows(users, sessions, now, tokens):
    """Appends each session's token to tokens as it yields its row."""
    for _ in range(sessions):
        token = "authd_" + base64.urlsafe_b64encode(os.urandom(32)).rstrip(b"=").decode()
        tokens.append(token)
        yield (hashlib.sha256(token.encode()).digest(), user_id(random.randint(1, users)), now, now + 86400000)


def write_tokens(tokens, tokens_out):
    with open(tokens_out, "w") as out:
        out.write("\n".join(tokens) + "\n")


def sqlite_seed(db, users, phc_file, sessions, tokens_out):
    import sqlite3
    now = int(time.time() * 1000)
    con = sqlite3.connect(db, isolation_level=None)
    con.execute("PRAGMA synchronous = OFF")
    con.execute("BEGIN")
    con.executemany(
        "INSERT INTO users (id, email, password_hash, display_name, created_at, updated_at) "
        "VALUES (?, ?, ?, ?, ?, ?)", user_rows(users, phc_file, now))
    tokens = []
    con.executemany(
        "INSERT INTO sessions (token_digest, user_id, created_at, expires_at) VALUES (?, ?, ?, ?)",
        session_rows(users, sessions, now, tokens))
    con.execute("COMMIT")
    con.close()
    write_tokens(tokens, tokens_out)


def postgres_csv(kind, args):
    now = int(time.time() * 1000)
    out = csv.writer(sys.stdout, lineterminator="\n")
    if kind == "users" and len(args) == 2:
        out.writerows(user_rows(int(args[0]), args[1], now))
    elif kind == "sessions" and len(args) == 3:
        tokens = []
        out.writerows(("\\x" + digest.hex(), user, created, expires)
                      for digest, user, created, expires in session_rows(int(args[0]), int(args[1]), now, tokens))
        sys.stdout.flush()
        write_tokens(tokens, args[2])
    else:
        sys.exit(__doc__)


def main():
    if len(sys.argv) >= 3 and sys.argv[1] == "--postgres-csv":
        postgres_csv(sys.argv[2], sys.argv[3:])
    elif len(sys.argv) == 6:
        db, users, phc_file, sessions, tokens_out = sys.argv[1:6]
        sqlite_seed(db, int(users), phc_file, int(sessions), tokens_out)
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
