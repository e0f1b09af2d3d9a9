#!/usr/bin/env python3
"""What the OpenID provider's scenarios need before they run (bench/run.sh):

  oidc_mint.py client ADMIN_URL ADMIN_KEY_FILE OUT [--alg RS256|ES256]
      Registers a first-party confidential client through the admin API
      (POST /admin/clients on the management listener, interface.md 17.3)
      and writes OUT (mode 0600), key=value lines that this script and the
      Lua scenarios read: client_id, basic (the Authorization header of
      client_secret_basic), redirect_uri, code_verifier, authorize_query
      (GET /oauth2/authorize's query without the scope), cookie (the
      session cookie's name). The redirect URI is a loopback one
      (http://127.0.0.1/callback): nothing listens there, the code is read
      from the 302's Location.
      Options for the token lifecycle's scenarios: --grants (the client's
      grantTypes, comma-separated), --scopes (its scopes), --introspection
      (a resource server that may call POST /oauth2/introspect, 17.11).
  oidc_mint.py tokens CLIENT_FILE BASE_URL SESSIONS_FILE COUNT OUT [--scope S]
      COUNT opaque access tokens, one a line: for each, GET /oauth2/authorize
      with `Cookie: <cookie>=<session token>` (a seeded session, taken in
      turn from SESSIONS_FILE) and PKCE (S256, a fixed verifier), then POST
      /oauth2/token with the code (form-urlencoded, client_secret_basic).
  oidc_mint.py refresh CLIENT_FILE BASE_URL SESSIONS_FILE COUNT OUT [--scope S]
      The same, writing the refresh tokens (17.10: the scope must hold
      offline_access, and the client have the refresh_token grant).
  oidc_mint.py codes CLIENT_FILE BASE_URL SESSIONS_FILE COUNT OUT [--scope S]
      COUNT authorization codes, one a line (the first half of the above).
      They live 60 s (17.6): bench/run.sh mints the token scenario's many
      codes with wrk instead (bench/lua/mint_codes.lua), faster.

Threads (--threads, default 8), each with one keep-alive connection
(http.client). Prints "minted N in S s" to stderr; exits 1 when fewer than
COUNT were minted. Never prints a secret.
"""
import argparse
import base64
import hashlib
import http.client
import json
import os
import sys
import threading
import time
import urllib.parse

REDIRECT_URI = "http://127.0.0.1/callback"
# RFC 7636 4.1: 43 to 128 unreserved characters. A fixed verifier: the
# bench measures the server, not the client's randomness.
CODE_VERIFIER = "bench-code-verifier-0123456789-abcdefghijklmnopqrstuvwxyz"
COOKIE = "authd_session"  # --oidc on with a loopback http public URL (17.2)


def code_challenge(verifier):
    digest = hashlib.sha256(verifier.encode()).digest()
    return base64.urlsafe_b64encode(digest).rstrip(b"=").decode()


def read_env(path):
    values = {}
    for line in open(path):
        if "=" in line:
            key, value = line.rstrip("\n").split("=", 1)
            values[key] = value
    return values


def host_port(url):
    parsed = urllib.parse.urlsplit(url)
    return parsed.hostname, parsed.port or 80


def register(args):
    key = open(args.admin_key_file).read().strip()
    body = {
        "name": "bench %s" % args.alg,
        "type": "confidential",
        "redirectUris": [REDIRECT_URI],
        "grantTypes": args.grants.split(","),
        "scopes": args.scopes.split(","),
        "firstParty": True,  # no consent page: the bench measures the code flow itself
        "idTokenSignedResponseAlg": args.alg,
        "introspection": args.introspection,
    }
    host, port = host_port(args.admin_url)
    connection = http.client.HTTPConnection(host, port, timeout=30)
    connection.request("POST", "/admin/clients", json.dumps(body),
                       {"Content-Type": "application/json", "Authorization": "Bearer " + key})
    response = connection.getresponse()
    text = response.read()
    if response.status != 201:
        sys.exit("POST /admin/clients: %d %s" % (response.status, text[:300].decode(errors="replace")))
    client = json.loads(text)
    # RFC 6749 2.3.1: id and secret form-urlencoded before base64.
    pair = urllib.parse.quote(client["clientId"], safe="") + ":" + urllib.parse.quote(
        client["clientSecret"], safe="")
    query = urllib.parse.urlencode({
        "response_type": "code",
        "client_id": client["clientId"],
        "redirect_uri": REDIRECT_URI,
        "code_challenge": code_challenge(CODE_VERIFIER),
        "code_challenge_method": "S256",
        "state": "bench-state",
        "nonce": "bench-nonce",
    })
    lines = [
        "client_id=" + client["clientId"],
        "basic=Basic " + base64.b64encode(pair.encode()).decode(),
        "redirect_uri=" + REDIRECT_URI,
        "code_verifier=" + CODE_VERIFIER,
        "authorize_query=" + query,
        "cookie=" + COOKIE,
    ]
    fd = os.open(args.out, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as out:
        out.write("\n".join(lines) + "\n")
    print("registered client %s (%s)" % (client["clientId"], args.alg), file=sys.stderr)


class Minter:
    """One keep-alive connection: a code per session token, and a token per code."""

    def __init__(self, client, base_url, scope):
        self.client = client
        self.host, self.port = host_port(base_url)
        self.authorize_path = "/oauth2/authorize?%s&%s" % (
            client["authorize_query"], urllib.parse.urlencode({"scope": scope}))
        self.connection = None

    def _exchange(self, method, path, body=None, headers=None):
        for attempt in (1, 2):  # once more on a connection the server closed
            if self.connection is None:
                self.connection = http.client.HTTPConnection(self.host, self.port, timeout=30)
            try:
                self.connection.request(method, path, body, headers or {})
                response = self.connection.getresponse()
                text = response.read()
                if response.getheader("Connection", "").lower() == "close":
                    self.connection.close()
                    self.connection = None
                return response, text
            except (http.client.HTTPException, OSError):
                self.connection.close()
                self.connection = None
                if attempt == 2:
                    raise
        raise AssertionError("unreachable")

    def code(self, session_token):
        response, text = self._exchange(
            "GET", self.authorize_path, headers={"Cookie": "%s=%s" % (self.client["cookie"], session_token)})
        location = response.getheader("Location", "")
        query = urllib.parse.parse_qs(urllib.parse.urlsplit(location).query)
        if response.status != 302 or "code" not in query:
            # The Location of an error redirect names the error, never a secret.
            raise RuntimeError("GET /oauth2/authorize: %d %s" % (
                response.status, location.split("?")[0] + " " + " ".join(query.get("error", []))))
        return query["code"][0]

    def _tokens(self, session_token):
        body = urllib.parse.urlencode({
            "grant_type": "authorization_code",
            "code": self.code(session_token),
            "redirect_uri": self.client["redirect_uri"],
            "code_verifier": self.client["code_verifier"],
        })
        response, text = self._exchange("POST", "/oauth2/token", body, {
            "Content-Type": "application/x-www-form-urlencoded",
            "Authorization": self.client["basic"],
        })
        if response.status != 200:
            raise RuntimeError("POST /oauth2/token: %d %s" % (response.status, text[:200].decode(errors="replace")))
        return json.loads(text)

    def token(self, session_token):
        return self._tokens(session_token)["access_token"]

    def refresh(self, session_token):
        return self._tokens(session_token)["refresh_token"]


def mint(args, what):
    client = read_env(args.client_file)
    sessions = [line.strip() for line in open(args.sessions_file) if line.strip()]
    results = [None] * args.count
    failures = []
    next_index = [0]
    lock = threading.Lock()

    def worker():
        minter = Minter(client, args.base_url, args.scope)
        while True:
            with lock:
                i = next_index[0]
                next_index[0] += 1
            if i >= args.count or failures:
                return
            try:
                results[i] = getattr(minter, what)(sessions[i % len(sessions)])
            except Exception as error:  # reported once, below
                with lock:
                    failures.append(str(error))
                return

    start = time.monotonic()
    threads = [threading.Thread(target=worker) for _ in range(args.threads)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    seconds = time.monotonic() - start
    minted = [r for r in results if r]
    fd = os.open(args.out, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as out:
        out.write("\n".join(minted) + "\n")
    print("minted %d %ss in %.1f s (%.0f a second)" % (len(minted), what, seconds, len(minted) / seconds),
          file=sys.stderr)
    if failures:
        print("first failure: " + failures[0], file=sys.stderr)
    if len(minted) < args.count:
        sys.exit(1)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    commands = parser.add_subparsers(dest="command", required=True)
    c = commands.add_parser("client")
    c.add_argument("admin_url")
    c.add_argument("admin_key_file")
    c.add_argument("out")
    c.add_argument("--alg", default="RS256", choices=["RS256", "ES256"])
    c.add_argument("--grants", default="authorization_code")
    c.add_argument("--scopes", default="openid,profile,email,phone")
    c.add_argument("--introspection", action="store_true")
    for name in ("tokens", "codes", "refresh"):
        m = commands.add_parser(name)
        m.add_argument("client_file")
        m.add_argument("base_url")
        m.add_argument("sessions_file")
        m.add_argument("count", type=int)
        m.add_argument("out")
        m.add_argument("--scope", default="openid")
        m.add_argument("--threads", type=int, default=8)
    args = parser.parse_args()
    if args.command == "client":
        register(args)
    else:
        mint(args, {"tokens": "token", "codes": "code", "refresh": "refresh"}[args.command])


if __name__ == "__main__":
    main()
