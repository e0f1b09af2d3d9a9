"""The checks after the faults (interface.md 20.2): every acknowledged write
is there. Each check returns the list of what it found missing or wrong;
the campaign fails on any."""

import time
import urllib.parse

from instances import call


def find_user(journal, authd, key, email):
    answer = call(journal, authd, "find", "GET",
                  "/admin/users?email=" + urllib.parse.quote(email), admin=key)
    users = answer.json()["users"] if answer.status == 200 else None
    if users is None:
        raise RuntimeError("GET /admin/users answered {}".format(answer.status))
    return users[0] if users else None


def me_status(journal, authd, token):
    return call(journal, authd, "me", "GET", "/me", token=token).status


def serves(journal, authd, key, limit):
    """Whether `authd` acknowledges a write (an account for the probe)
    within `limit` seconds: the checks need answers, not 503s."""
    start = time.monotonic()
    while time.monotonic() - start < limit:
        email = "probe-{}-{}@campaign.test".format(authd.name, time.monotonic_ns())
        answer = call(journal, authd, "create", "POST", "/admin/users",
                      {"email": email}, admin=key, note="check")
        if answer.status == 201:
            return True
        time.sleep(0.5)
    return False


def check_created(journal, instances, key, model):
    return ["created account missing: " + email for email in model.created
            if find_user(journal, instances[0], key, email) is None]


def check_disabled(journal, instances, key, model):
    found = []
    for _, email, token in model.disabled:
        user = find_user(journal, instances[0], key, email)
        if user is None or not user["disabled"]:
            found.append("acknowledged disabling lost: " + email)
        if me_status(journal, instances[1], token) != 401:
            found.append("a session of a disabled account is alive: " + email)
    return found


def check_sessions(journal, instances, model):
    found = ["a revoked token is alive again" for token in model.revoked_tokens
             if me_status(journal, instances[0], token) != 401]
    found += ["an acknowledged session is gone: " + email for token, email in model.live_tokens
              if me_status(journal, instances[1], token) != 200]
    return found


def check_passwords(journal, instances, model):
    """The last acknowledged password, or one set by a "maybe" after it,
    signs in (admin password changes and resets)."""
    found = []
    for email, history in model.history.items():
        if len(history) == 1:
            continue
        last = max(i for i, (_, acked) in enumerate(history) if acked)
        candidates = [p for p, _ in history[last:]]
        statuses = []
        for password in candidates:
            answer = call(journal, instances[0], "login", "POST", "/login",
                          {"email": email, "password": password}, note="check")
            statuses.append(answer.status)
            if answer.status == 200:
                break
        if 200 not in statuses:
            found.append("acknowledged password change lost: {} ({})".format(email, statuses))
    return found


def check_throttling(journal, instances, model):
    """6 /login 4: the limit allows exactly `limit` failures. With a 401s
    acknowledged and u answers that may have counted, the further 401s
    before the 429 number k with a + k <= limit (no count lost) and
    a + u + k >= limit (nothing counted that did not happen)."""
    found = []
    for email, (acked, maybe) in model.throttle.items():
        k = 0
        while True:
            status = call(journal, instances[k % 2], "login", "POST", "/login",
                          {"email": email, "password": "still not it"}, note="check").status
            if status != 401 or k > model.limit:
                break
            k += 1
        if status != 429 or not (acked + k <= model.limit <= acked + maybe + k):
            found.append("throttling not exact for {}: {} acknowledged, {} maybe, {} more "
                         "401s, then {}".format(email, acked, maybe, k, status))
    return found


def check_mails(sink, model, limit):
    """6 /forgot 3-4: each acknowledged /forgot of an enabled account is
    mailed at least once (waiting for retries after the faults)."""
    start = time.monotonic()
    while True:
        mailed = {recipient for recipient, _, _ in sink.mails()}
        missing = [e for e in model.forgot_acked if e not in mailed]
        if not missing or time.monotonic() - start > limit:
            return ["no mail for an acknowledged /forgot: " + e for e in missing]
        time.sleep(0.5)


def check_reset_tokens(journal, instances, model):
    """7.2: a reset token that was used once is never accepted again."""
    found = []
    for token, email in model.resets_acked:
        answer = call(journal, instances[1], "reset", "POST", "/reset",
                      {"token": token, "password": "a password for a replay"}, note="check")
        if answer.status != 401:
            found.append("a used reset token answered {}: {}".format(answer.status, email))
    return found


def run_all(journal, instances, key, model, sink, mail_wait):
    found = check_mails(sink, model, mail_wait)
    found += check_created(journal, instances, key, model)
    found += check_disabled(journal, instances, key, model)
    found += check_sessions(journal, instances, model)
    found += check_reset_tokens(journal, instances, model)
    found += check_passwords(journal, instances, model)
    found += check_throttling(journal, instances, model)
    return found
