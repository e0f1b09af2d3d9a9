#!/usr/bin/env python3
"""Seeds a migrated authd SQLite database for the benchmark, in one transaction.

  seed.py DB USERS PHC_FILE SESSIONS TOKENS_OUT

USERS users user1@bench.test .. userN@bench.test, all with the password
"bench password 1", sharing the few precomputed argon2id PHC strings of
PHC_FILE (one a line, made with authd's parameters: no re-hash on login).
SESSIONS live sessions are inserted for random users, exactly as authd
stores them (SHA-256 digest of an "authd_" token); their tokens go to
TOKENS_OUT, one a line (GET /me and POST /logout use them).
"""
import base64
import hashlib
import os
import random
import sqlite3
import sys
import time


def main():
    db, users, phc_file, sessions, tokens_out = sys.argv[1:6]
    users, sessions = int(users), int(sessions)
    hashes = [line.strip() for line in open(phc_file) if line.strip()]
    now = int(time.time() * 1000)
    con = sqlite3.connect(db, isolation_level=None)
    con.execute("PRAGMA synchronous = OFF")
    con.execute("BEGIN")

    def user_rows():
        for n in range(1, users + 1):
            yield ("0190a000-0000-7000-8000-%012d" % n, "user%d@bench.test" % n,
                   hashes[n % len(hashes)], "Bench User %d" % n, now, now)

    con.executemany(
        "INSERT INTO users (id, email, password_hash, display_name, created_at, updated_at) "
        "VALUES (?, ?, ?, ?, ?, ?)", user_rows())

    tokens = []

    def session_rows():
        for _ in range(sessions):
            token = "authd_" + base64.urlsafe_b64encode(os.urandom(32)).rstrip(b"=").decode()
            tokens.append(token)
            user = "0190a000-0000-7000-8000-%012d" % random.randint(1, users)
            yield (hashlib.sha256(token.encode()).digest(), user, now, now + 86400000)

    con.executemany(
        "INSERT INTO sessions (token_digest, user_id, created_at, expires_at) VALUES (?, ?, ?, ?)",
        session_rows())
    con.execute("COMMIT")
    con.close()
    with open(tokens_out, "w") as out:
        out.write("\n".join(tokens) + "\n")


if __name__ == "__main__":
    main()
