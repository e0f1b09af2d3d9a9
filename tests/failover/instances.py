"""The processes of the fault campaign (interface.md 20.2): the SMTP receiver
of the test support, two authd instances on the Patroni cluster, and one
HTTP call with its outcome classified and journalled."""

import http.client
import json
import os
import re
import secrets
import subprocess
import threading
import time

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
TOKEN_LINK = re.compile(r"http://authd\.test/reset#token=([A-Za-z0-9_-]+)")


def wait_for_file(path, process, limit=90):
    start = time.monotonic()
    while time.monotonic() - start < limit:
        if process.poll() is not None:
            raise RuntimeError("{} exited at start ({})".format(process.args[0], process.returncode))
        try:
            with open(path) as f:
                text = f.read()
            if text.endswith("\n"):
                return int(text)
        except FileNotFoundError:
            pass
        time.sleep(0.05)
    raise RuntimeError("no {} within {}s".format(path, limit))


class SmtpSink:
    """tests/support/smtp_sink.py: every accepted message as a .eml file."""

    def __init__(self, work):
        self.directory = os.path.join(work, "mail")
        os.makedirs(self.directory)
        port_file = os.path.join(work, "smtp.port")
        self.process = subprocess.Popen(
            ["/usr/bin/python3", os.path.join(ROOT, "tests/support/smtp_sink.py"),
             "--mail-dir", self.directory, "--port-file", port_file],
            stdout=subprocess.DEVNULL, stderr=open(os.path.join(work, "smtp.log"), "w"))
        self.port = wait_for_file(port_file, self.process)

    def mails(self):
        """(recipient, reset token or None, file name) of every mail so far."""
        found = []
        for name in sorted(os.listdir(self.directory)):
            if not name.endswith(".eml"):
                continue
            with open(os.path.join(self.directory, name), errors="replace") as f:
                text = f.read()
            recipient = re.search(r"^Delivered-To: (.+?)\r?$", text, re.M).group(1).strip().lower()
            token = TOKEN_LINK.search(text)
            found.append((recipient, token.group(1) if token else None, name))
        return found

    def stop(self):
        self.process.terminate()
        self.process.wait()


class Authd:
    """One `authd serve` on the cluster's multi-host URL."""

    def __init__(self, binary, work, name, database, smtp_port, key_file, login_email_limit):
        self.name = name
        self.directory = os.path.join(work, name)
        os.makedirs(self.directory)
        port_file = os.path.join(self.directory, "port")
        admin_port_file = os.path.join(self.directory, "admin_port")
        self.log_path = os.path.join(self.directory, "authd.log")
        args = [binary, "serve", "--listen", "127.0.0.1:0", "--port-file", port_file,
                "--admin-listen", "127.0.0.1:0", "--admin-port-file", admin_port_file,
                "--database", database, "--secret-key-file", key_file,
                "--public-url", "http://authd.test",
                "--mail-transport", "smtp", "--smtp-url", "smtp://127.0.0.1:{}".format(smtp_port),
                "--smtp-timeout", "5s", "--mail-claim-lease", "15s", "--reset-mail-delay", "1ms",
                # Cheap hashes: the two cores go to the cluster, not to argon2.
                "--argon2-memory-kib", "1024", "--argon2-iterations", "1",
                "--login-email-limit", "{}/1h".format(login_email_limit),
                # Every client is 127.0.0.1: only the per-e-mail counters are under test.
                "--login-client-limit", "1000000/1h", "--forgot-client-limit", "1000000/1h",
                "--reset-mail-limit-short", "100/1m", "--reset-mail-limit-long", "100/1h"]
        self.process = subprocess.Popen(args, stdout=subprocess.DEVNULL,
                                        stderr=open(self.log_path, "w"), cwd=self.directory)
        self.port = wait_for_file(port_file, self.process)
        with open(admin_port_file) as f:
            self.admin_port = int(f.read())

    def alive(self):
        return self.process.poll() is None

    def stop(self):
        if self.alive():
            self.process.terminate()
            try:
                self.process.wait(30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


def admin_key(binary, database):
    out = subprocess.run([binary, "admin-key", "create", "--name", "campaign", "--scope", "write",
                          "--database", database], check=True, capture_output=True, text=True)
    return out.stdout.strip()


def secret_key_file(work):
    path = os.path.join(work, "secret.key")
    with open(os.open(path, os.O_WRONLY | os.O_CREAT, 0o600), "w") as f:
        f.write(secrets.token_hex(32) + "\n")
    return path


# What each operation may answer besides 503 (which needs Retry-After). Any
# other status, a 500 above all, or no answer at all, is a violation.
ALLOWED = {
    "login": {200, 401, 403, 429}, "logout": {200, 401}, "me": {200, 401},
    "forgot": {200}, "reset": {200, 401}, "create": {201}, "disable": {200},
    "set_password": {200}, "find": {200},
}
WRITES = {"login", "logout", "forgot", "reset", "create", "disable", "set_password"}


class Answer:
    def __init__(self, status, headers, body):
        self.status = status
        self.headers = headers
        self.body = body

    @property
    def acknowledged(self):
        return 200 <= self.status < 300

    @property
    def ambiguous(self):
        """Not acknowledged, but maybe committed: a 503 (or no answer)."""
        return self.status == 503 or self.status == 0

    def json(self):
        return json.loads(self.body)


class Journal:
    """Every answer, in order, in memory and in journal.jsonl."""

    def __init__(self, work):
        self.lock = threading.Lock()
        self.entries = []
        self.violations = []  # answers no route may give
        self.losses = []      # acknowledged writes found missing during the load
        self.file = open(os.path.join(work, "journal.jsonl"), "w")

    def record(self, instance, op, started, ended, answer, note):
        entry = {"instance": instance, "op": op, "start": started, "end": ended,
                 "status": answer.status, "note": note}
        with self.lock:
            self.entries.append(entry)
            self.file.write(json.dumps(entry) + "\n")
            if answer.status == 503 and answer.headers.get("retry-after") is None:
                self.violations.append("503 without Retry-After: {}".format(entry))
            elif answer.status != 503 and answer.status not in ALLOWED[op]:
                self.violations.append("unexpected answer: {} {}".format(
                    entry, answer.body[:200]))

    def close(self):
        self.file.close()


def call(journal, authd, op, method, path, body=None, token=None, admin=None, note=""):
    """One request on a new connection; journalled. Status 0: no answer."""
    headers = {}
    if body is not None:
        headers["Content-Type"] = "application/json"
    if token:
        headers["Authorization"] = "Bearer " + token
    if admin:
        headers["Authorization"] = "Bearer " + admin
    port = authd.admin_port if admin else authd.port
    started = time.monotonic()
    try:
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        connection.request(method, path, body=json.dumps(body) if body is not None else None,
                           headers=headers)
        response = connection.getresponse()
        answer = Answer(response.status, {k.lower(): v for k, v in response.getheaders()},
                        response.read().decode(errors="replace"))
        connection.close()
    except (OSError, http.client.HTTPException) as error:
        answer = Answer(0, {}, "no answer: {}".format(error))
    journal.record(authd.name, op, started, time.monotonic(), answer, note)
    return answer
