#!/usr/bin/python3
"""How many pages a refresh and a logout write to SQLite's WAL.

    bench/wal_pages.py AUTHD_BIN [--batch N] [--history N]

On SQLite the writes of a busy server are bound by the pages each commit
writes to the WAL (docs/design/performance.md, "What the provider's
figures say"): every page a transaction dirties is written whole at the
group commit. This builds authd's own schema (`authd migrate` on a fresh
file), fills the token and session tables with --history rows, then runs
the statements of a refresh (store/sqlite/refresh_tokens.cpp and
access_tokens.cpp: the used token marked, the next refresh token and an
access token inserted) and of a logout (store/sqlite/sessions.cpp: the
session marked revoked) in commits of --batch, as the group commit runs
them, and prints the WAL's growth per operation, in pages. Foreign keys
are not enforced here (their checks read pages, they write none), so the
rows need no users or clients. Then it drops each token index in turn and
prints what that index costs a refresh.
"""
import argparse
import os
import random
import sqlite3
import subprocess
import tempfile
import uuid

PAGE = 4096
FRAME = PAGE + 24  # a WAL frame: the page and its header


def filler(db, table, given):
    """A row of `table`: the values in `given`, NULL for nullable columns,
    and for the others a value of their type."""
    row = {}
    for _, name, kind, notnull, _, pk in db.execute(f"PRAGMA table_info({table})"):
        if name in given:
            row[name] = given[name]
        elif not notnull and not pk:
            row[name] = None
        elif "INT" in kind.upper():
            row[name] = 1_700_000_000_000
        elif "BLOB" in kind.upper():
            row[name] = os.urandom(32)
        else:
            row[name] = str(uuid.uuid4())
    return row


def insert(db, table, row):
    names = ", ".join(row)
    marks = ", ".join("?" for _ in row)
    db.execute(f"INSERT INTO {table} ({names}) VALUES ({marks})", list(row.values()))


class Clock:
    def __init__(self):
        self.ms = 1_700_000_000_000

    def tick(self):
        self.ms += 3
        return self.ms


def refresh_token(db, clock, digest, family, user, client, family_end):
    now = clock.tick()
    insert(db, "oauth_refresh_tokens", filler(db, "oauth_refresh_tokens", {
        "token_digest": digest, "family_digest": family, "client_id": client, "user_id": user,
        "scope": "profile offline_access", "created_at": now, "expires_at": now + 86_400_000,
        "family_expires_at": family_end, "used_at": None}))


def access_token(db, clock, user, client, grant):
    now = clock.tick()
    insert(db, "oauth_access_tokens", filler(db, "oauth_access_tokens", {
        "token_digest": os.urandom(32), "client_id": client, "user_id": user, "scope": "profile",
        "grant_digest": grant, "created_at": now, "expires_at": now + 3_600_000}))


def session(db, clock, user):
    now = clock.tick()
    digest = os.urandom(32)
    insert(db, "sessions", filler(db, "sessions", {
        "token_digest": digest, "user_id": user, "created_at": now,
        "expires_at": now + 86_400_000, "revoked_at": None}))
    return digest


def wal_pages(path):
    return os.path.getsize(path + "-wal") / FRAME


def measure(authd, history, batch, drop=None):
    directory = tempfile.mkdtemp(prefix="authd-wal-pages.")
    path = os.path.join(directory, "authd.db")
    subprocess.run([authd, "migrate", "--database", "sqlite:" + path], check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    db = sqlite3.connect(path, isolation_level=None)
    db.execute("PRAGMA journal_mode=WAL")
    db.execute("PRAGMA wal_autocheckpoint=0")
    if drop:
        db.execute(f"DROP INDEX {drop}")
    clock = Clock()
    random.seed(1)
    client = str(uuid.uuid4())
    users = [str(uuid.uuid4()) for _ in range(1000)]
    families, sessions = [], []
    db.execute("BEGIN")
    for _ in range(history):
        user = random.choice(users)
        family, digest = os.urandom(32), os.urandom(32)
        family_end = clock.ms + 30 * 86_400_000
        refresh_token(db, clock, digest, family, user, client, family_end)
        access_token(db, clock, user, client, family)
        families.append((digest, family, user, family_end))
        sessions.append(session(db, clock, user))
    db.execute("COMMIT")
    db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    random.shuffle(families)
    random.shuffle(sessions)
    rounds = 100

    start = wal_pages(path)
    for _ in range(rounds):
        db.execute("BEGIN")
        for _ in range(batch):
            digest, family, user, family_end = families.pop()
            db.execute("UPDATE oauth_refresh_tokens SET used_at = ? "
                       "WHERE token_digest = ? AND used_at IS NULL", (clock.tick(), digest))
            next_digest = os.urandom(32)
            refresh_token(db, clock, next_digest, family, user, client, family_end)
            access_token(db, clock, user, client, family)
            families.insert(0, (next_digest, family, user, family_end))
        db.execute("COMMIT")
    refresh = (wal_pages(path) - start) / (rounds * batch)

    start = wal_pages(path)
    for _ in range(rounds):
        db.execute("BEGIN")
        for _ in range(batch):
            db.execute("UPDATE sessions SET revoked_at = ? "
                       "WHERE token_digest = ? AND revoked_at IS NULL",
                       (clock.tick(), sessions.pop()))
        db.execute("COMMIT")
    logout = (wal_pages(path) - start) / (rounds * batch)
    db.close()
    subprocess.run(["rm", "-rf", directory], check=True)
    return refresh, logout


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("authd")
    parser.add_argument("--batch", type=int, default=30, help="operations per commit")
    parser.add_argument("--history", type=int, default=60_000,
                        help="refresh families and sessions stored before")
    args = parser.parse_args()
    refresh, logout = measure(args.authd, args.history, args.batch)
    print(f"pages per refresh {refresh:.1f}, per logout {logout:.1f} "
          f"(commits of {args.batch}, {args.history} rows before)")
    indexes = ["oauth_refresh_tokens_by_family", "oauth_refresh_tokens_by_user",
               "oauth_refresh_tokens_by_client", "oauth_refresh_tokens_by_family_expiry",
               "oauth_access_tokens_by_grant", "oauth_access_tokens_by_user",
               "oauth_access_tokens_by_client", "oauth_access_tokens_by_expiry"]
    for index in indexes:
        without, _ = measure(args.authd, args.history, args.batch, drop=index)
        print(f"  {index}: {refresh - without:.1f} pages a refresh")


if __name__ == "__main__":
    main()
