"""The mixed load of the fault campaign (interface.md 20.2): logins, /me,
logouts, /forgot and the resets its mails allow, admin creations,
disablings and password changes, and failed logins against the per-e-mail
limit, spread over two authd instances. Each acknowledged answer (2xx) is a
write the cluster must keep; each 503 or missing answer is "maybe": the
checks (checks.py) accept it either way."""

import random
import threading
import time

from instances import call

PASSWORD = "campaign password 0"
# Operations per second of those that use up seeded accounts (pool_sizes).
RATES = {"forgot": 4, "disable": 1.5, "failed_login": 3, "create": 5}


def pool_sizes(seconds, login_email_limit):
    """Seeded accounts for a load of about `seconds`."""
    return {"session": 20, "password": 20, "forgot": int(RATES["forgot"] * seconds) + 10,
            "disable": int(RATES["disable"] * seconds) + 5,
            "throttle": int(RATES["failed_login"] * seconds / (login_email_limit - 1)) + 5}


class Model:
    """What the acknowledged answers say the database now holds."""

    def __init__(self, login_email_limit):
        self.lock = threading.Lock()
        self.limit = login_email_limit
        self.session_users = []      # (email, password), never changed
        self.live_tokens = []        # (token, email): logins acknowledged, not logged out
        self.revoked_tokens = []     # logouts acknowledged
        self.created = []            # e-mails of acknowledged creations
        self.disable_pool = []       # (id, email, token) not yet disabled
        self.disabled = []           # (id, email, token) acknowledged disabled
        self.password_pool = []      # (id, email) whose password the admin API sets
        self.history = {}            # email -> [(password, acknowledged?)] in order
        self.throttle = {}           # email -> [acknowledged 401s, maybe counted]
        self.forgot_pool = []        # e-mails not yet sent to /forgot
        self.forgot_acked = []
        self.resets_acked = []       # (token, email)
        self.acked = {}              # op -> acknowledged writes
        self.maybe = {}              # op -> 503s and missing answers of writes

    def count(self, op, answer):
        with self.lock:
            if answer.acknowledged:
                self.acked[op] = self.acked.get(op, 0) + 1
            elif answer.ambiguous:
                self.maybe[op] = self.maybe.get(op, 0) + 1


def create_user(journal, authd, key, email, password, model):
    answer = call(journal, authd, "create", "POST", "/admin/users",
                  {"email": email, "password": password}, admin=key)
    model.count("create", answer)
    return answer.json()["id"] if answer.status == 201 else None


def seed(journal, instances, key, model, sizes, prefix):
    """Accounts for each kind of operation, created before any fault."""
    authd = instances[0]

    def make(kind, n):
        made = []
        for i in range(n):
            email = "{}-{}-{}@campaign.test".format(prefix, kind, i)
            user_id = create_user(journal, authd, key, email, PASSWORD, model)
            if user_id is None:
                raise RuntimeError("seeding failed: " + journal.entries[-1]["note"])
            model.history[email] = [(PASSWORD, True)]
            made.append((user_id, email))
        return made

    model.session_users = [(e, PASSWORD) for _, e in make("session", sizes["session"])]
    for user_id, email in make("disable", sizes["disable"]):
        answer = call(journal, authd, "login", "POST", "/login",
                      {"email": email, "password": PASSWORD})
        model.disable_pool.append((user_id, email, answer.headers["authorization"].split()[1]))
    model.password_pool = make("password", sizes["password"])
    model.throttle = {e: [0, 0] for _, e in make("throttle", sizes["throttle"])}
    model.forgot_pool = [e for _, e in make("forgot", sizes["forgot"])]


class Load:
    """Worker threads running operations until stopped, and one thread
    that turns every reset mail into a /reset."""

    def __init__(self, journal, instances, key, model, sink, workers, prefix):
        self.journal, self.instances, self.key = journal, instances, key
        self.model, self.sink, self.prefix = model, sink, prefix
        self.stopping = threading.Event()
        self.serial = 0
        self.next_allowed = {}
        self.threads = [threading.Thread(target=self.work, args=(random.Random(i),))
                        for i in range(workers)]
        self.threads.append(threading.Thread(target=self.reset_mails))

    def start(self):
        for t in self.threads:
            t.start()

    def stop(self):
        self.stopping.set()
        for t in self.threads:
            t.join()

    def next_serial(self):
        with self.model.lock:
            self.serial += 1
            return self.serial

    def paced(self, op):
        """Whether `op` may run now: the operations that use up seeded
        accounts run at RATES per second, so that the pools last the run."""
        with self.model.lock:
            now = time.monotonic()
            if now < self.next_allowed.get(op, 0):
                return False
            self.next_allowed[op] = now + 1 / RATES[op]
            return True

    def work(self, rng):
        ops = [self.login_logout, self.me, self.forgot, self.create, self.disable,
               self.set_password, self.failed_login]
        weights = [4, 2, 3, 2, 1, 1, 2]
        while not self.stopping.is_set():
            op = rng.choices(ops, weights)[0]
            if op.__name__ not in RATES or self.paced(op.__name__):
                op(rng, rng.choice(self.instances))
            time.sleep(0.01)

    def login_logout(self, rng, authd):
        m = self.model
        email, password = rng.choice(m.session_users)
        answer = call(self.journal, authd, "login", "POST", "/login",
                      {"email": email, "password": password})
        m.count("login", answer)
        if not answer.acknowledged:
            return
        token = answer.headers["authorization"].split()[1]
        if rng.random() < 0.5:
            with m.lock:
                m.live_tokens.append((token, email))
            return
        other = rng.choice(self.instances)
        answer = call(self.journal, other, "logout", "POST", "/logout", token=token)
        m.count("logout", answer)
        with m.lock:
            if answer.acknowledged:
                m.revoked_tokens.append(token)
            elif answer.status == 401:
                self.journal.losses.append("an acknowledged login's token unknown at logout")

    def me(self, rng, authd):
        with self.model.lock:
            if not self.model.live_tokens:
                return
            token, email = rng.choice(self.model.live_tokens)
        answer = call(self.journal, authd, "me", "GET", "/me", token=token)
        if answer.status == 401:
            with self.model.lock:
                if (token, email) in self.model.live_tokens:  # once a token
                    self.model.live_tokens.remove((token, email))
                    self.journal.losses.append(
                        "an acknowledged session answered 401 at /me: " + email)

    def forgot(self, rng, authd):
        m = self.model
        with m.lock:
            if not m.forgot_pool:
                return
            email = m.forgot_pool.pop()
        answer = call(self.journal, authd, "forgot", "POST", "/forgot", {"email": email})
        m.count("forgot", answer)
        if answer.acknowledged:
            with m.lock:
                m.forgot_acked.append(email)

    def create(self, rng, authd):
        email = "{}-created-{}@campaign.test".format(self.prefix, self.next_serial())
        if create_user(self.journal, authd, self.key, email, PASSWORD, self.model):
            with self.model.lock:
                self.model.created.append(email)

    def disable(self, rng, authd):
        m = self.model
        with m.lock:
            if not m.disable_pool:
                return
            user = m.disable_pool.pop()
        answer = call(self.journal, authd, "disable", "PATCH", "/admin/users/" + user[0],
                      {"disabled": True}, admin=self.key)
        m.count("disable", answer)
        if answer.acknowledged:
            with m.lock:
                m.disabled.append(user)

    def set_password(self, rng, authd):
        m = self.model
        with m.lock:
            if not m.password_pool:
                return
            user_id, email = m.password_pool.pop(rng.randrange(len(m.password_pool)))
        password = "campaign password {}".format(self.next_serial())
        answer = call(self.journal, authd, "set_password", "PUT",
                      "/admin/users/{}/password".format(user_id), {"password": password},
                      admin=self.key)
        m.count("set_password", answer)
        with m.lock:
            if answer.acknowledged or answer.ambiguous:
                m.history[email].append((password, answer.acknowledged))
            # After a "maybe" the stored password is one of two: leave it be.
            if not answer.ambiguous:
                m.password_pool.append((user_id, email))

    def failed_login(self, rng, authd):
        """Wrong passwords until one short of the limit: the final check
        then counts how many more 401s the limit allows."""
        m = self.model
        with m.lock:
            open_ = [e for e, (a, u) in m.throttle.items() if a + u < m.limit - 1]
            if not open_:
                return
            email = rng.choice(open_)
            m.throttle[email][1] += 1  # in flight: maybe counted
        answer = call(self.journal, authd, "login", "POST", "/login",
                      {"email": email, "password": "not the password"}, note="failed")
        with m.lock:
            counts = m.throttle[email]
            if answer.status == 401:
                counts[0] += 1
                counts[1] -= 1
            elif answer.status == 429:
                self.journal.losses.append(
                    "429 for {} after {} acknowledged failures".format(email, counts[0]))
            elif not answer.ambiguous:
                counts[1] -= 1

    def reset_mails(self):
        rng = random.Random(99)
        seen = set()
        while not self.stopping.is_set():
            for recipient, token, name in self.sink.mails():
                if name in seen or token is None:
                    continue
                seen.add(name)
                if rng.random() < 0.25:
                    self.reset_twice_at_once(token, recipient)
                else:
                    self.reset(rng.choice(self.instances), token, recipient)
            time.sleep(0.2)

    def reset(self, authd, token, email):
        password = "campaign password {}".format(self.next_serial())
        answer = call(self.journal, authd, "reset", "POST", "/reset",
                      {"token": token, "password": password})
        self.model.count("reset", answer)
        with self.model.lock:
            if answer.acknowledged or answer.ambiguous:
                self.model.history[email].append((password, answer.acknowledged))
            if answer.acknowledged:
                self.model.resets_acked.append((token, email))
        return answer

    def reset_twice_at_once(self, token, email):
        """interface.md 7.2: of concurrent resets with one token, one wins."""
        answers = []
        threads = [threading.Thread(target=lambda a=a: answers.append(self.reset(a, token, email)))
                   for a in self.instances]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        if sum(1 for a in answers if a.acknowledged) > 1:
            self.journal.violations.append("one reset token acknowledged twice at once")
