#!/usr/bin/python3
"""The fault campaign of interface.md 20.2, run inside scripts/with-patroni.sh:
two authd instances on the cluster's multi-host URL under a mixed load; the
primary's postmaster killed with kill -9, again and again, each time
waiting for Patroni to promote the synchronous standby; then every
acknowledged write checked (checks.py). Also checked throughout: answers
during a failover are 503 with Retry-After, never a 500, never no answer.

Recorded for each failover: the seconds from the kill until the new
primary accepts writes, and from then until each instance acknowledges a
write it received after that moment ("serves again"; the longer of the
two). Prints a summary, writes it as JSON with --report, exits 1 on any
loss or violation (with --allow-loss, as for an asynchronous cluster, the
losses are reported but do not fail the run).

Usage: scripts/with-patroni.sh tests/failover/campaign.py --authd BUILD/authd
       --failovers N [--report FILE] [--allow-loss]
"""

import argparse
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import checks  # noqa: E402
from instances import WRITES, Authd, Journal, SmtpSink, admin_key, secret_key_file  # noqa: E402
from load import Load, Model, pool_sizes, seed  # noqa: E402

LOGIN_EMAIL_LIMIT = 6


def control(*args):
    return subprocess.run([os.environ["AUTHD_PATRONI_CONTROL"], *args], check=True,
                          capture_output=True, text=True).stdout.strip()


def serve_again(journal, writable_at, instances):
    """Seconds from `writable_at` until each instance acknowledged a write
    received after it; the longer of the instances' (None if one never did)."""
    waits = []
    for authd in instances:
        ends = [e["end"] for e in journal.entries
                if e["instance"] == authd.name and e["op"] in WRITES and e["note"] == ""
                and e["start"] >= writable_at and 200 <= e["status"] < 300]
        waits.append(min(ends) - writable_at if ends else None)
    return None if None in waits else max(waits)


def spread(values):
    values = [v for v in values if v is not None]
    if not values:
        return None
    return {"min": round(min(values), 2), "median": round(statistics.median(values), 2),
            "max": round(max(values), 2)}


def run_faults(args, journal, instances, rng):
    failovers = []
    for i in range(args.failovers):
        control("wait-healthy", "180")
        time.sleep(rng.uniform(1.0, 3.0))  # the kill lands anywhere in the load
        killed_at = time.monotonic()
        node = control("kill-primary")
        control("wait-primary", "120")
        writable_at = time.monotonic()
        failovers.append({"killed": node, "killed_at": killed_at, "writable_at": writable_at})
        print("campaign: failover {}: {} killed, writable after {:.2f}s".format(
            i + 1, node, writable_at - killed_at), file=sys.stderr, flush=True)
    control("wait-healthy", "180")
    time.sleep(3)  # load after the last failover, for its time to serve again
    return failovers


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--authd", required=True)
    parser.add_argument("--failovers", type=int, default=3)
    parser.add_argument("--workers", type=int, default=4)
    parser.add_argument("--report")
    parser.add_argument("--allow-loss", action="store_true")
    parser.add_argument("--keep", action="store_true", help="keep the work directory")
    args = parser.parse_args()
    args.authd = os.path.abspath(args.authd)
    database = os.environ["AUTHD_PATRONI_DATABASE"]
    work = tempfile.mkdtemp(prefix="authd-failover.")
    rng = random.Random(int(os.environ.get("CAMPAIGN_SEED", time.time())))
    journal = Journal(work)
    sink = SmtpSink(work)
    instances = []
    load = None
    try:
        key = admin_key(args.authd, database)
        key_file = secret_key_file(work)
        instances = [Authd(args.authd, work, "authd{}".format(n), database, sink.port, key_file,
                           LOGIN_EMAIL_LIMIT) for n in (1, 2)]
        model = Model(LOGIN_EMAIL_LIMIT)
        # About 15 s of load a failover (the cluster heals in about 8 s).
        sizes = pool_sizes(15 * args.failovers + 15, LOGIN_EMAIL_LIMIT)
        seed(journal, instances, key, model, sizes, "c")
        load = Load(journal, instances, key, model, sink, args.workers, "c")
        load.start()
        failovers = run_faults(args, journal, instances, rng)
        load.stop()
        load = None
        found = [a.name + " did not serve again within 60 s after the last failover"
                 for a in instances if not checks.serves(journal, a, key, limit=60)]
        if not found:
            found = checks.run_all(journal, instances, key, model, sink, mail_wait=90)
        for authd in instances:
            if not authd.alive():
                found.append("authd instance {} died".format(authd.name))
                print_log_tail(authd)
        report = summary(args, journal, instances, model, failovers, found)
    finally:
        if load is not None:
            load.stop()
        for authd in instances:
            authd.stop()
        sink.stop()
        journal.close()
        if args.keep:
            print("campaign: kept " + work, file=sys.stderr)
        else:
            shutil.rmtree(work, ignore_errors=True)
    print(json.dumps(report, indent=2))
    if args.report:
        with open(args.report, "w") as f:
            json.dump(report, f, indent=2)
    failed = report["violations"] or (report["lost"] and not args.allow_loss)
    return 1 if failed else 0


def print_log_tail(authd, lines=80):
    """A dead instance's last words (a sanitizer's report, an uncaught
    exception) go to stderr: the work directory is gone after the run."""
    with open(authd.log_path, errors="replace") as f:
        tail = f.readlines()[-lines:]
    print("campaign: {} exited with {}; the end of its log:".format(
        authd.name, authd.process.returncode), file=sys.stderr)
    sys.stderr.writelines(tail)
    sys.stderr.flush()


def summary(args, journal, instances, model, failovers, found):
    for f in failovers:
        f["serve_again"] = serve_again(journal, f["writable_at"], instances)
    statuses = {}
    for e in journal.entries:
        statuses[str(e["status"])] = statuses.get(str(e["status"]), 0) + 1
    return {
        "failovers": len(failovers),
        "synchronous": os.environ.get("ASYNC", "0") != "1",
        "acknowledged_writes": sum(model.acked.values()),
        "acknowledged_by_operation": model.acked,
        "maybe_by_operation": model.maybe,
        "answers_by_status": statuses,
        "lost_count": len(journal.losses + found),
        "lost": journal.losses + found,
        "violations": journal.violations[:50],
        "seconds_to_writable": spread([f["writable_at"] - f["killed_at"] for f in failovers]),
        "seconds_to_serve_again": spread([f["serve_again"] for f in failovers]),
        "serve_again_each": [None if f["serve_again"] is None else round(f["serve_again"], 2)
                             for f in failovers],
    }


if __name__ == "__main__":
    sys.exit(main())
