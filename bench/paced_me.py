#!/usr/bin/env python3
"""A separate client of GET /me at a steady pace, for bench/ab.sh's storm:

  paced_me.py PORT TOKENS_FILE SECONDS PER_SECOND

One keep-alive connection sends GET /me with tokens from TOKENS_FILE (one a
line) PER_SECOND times a second for SECONDS, each request when it is due
(never two at once), and prints one line:
  requests=N errors=E p50_ms=.. p99_ms=.. max_ms=..
A paced client, unlike a second wrk, measures what one user of /me sees
without adding a load of its own to the machine it measures.
"""
import http.client
import sys
import time


def main():
    port, tokens_file, seconds, per_second = sys.argv[1:5]
    tokens = [t.strip() for t in open(tokens_file) if t.strip()]
    interval = 1.0 / float(per_second)
    connection = http.client.HTTPConnection("127.0.0.1", int(port), timeout=10)
    latencies, errors = [], 0
    start = time.monotonic()
    due = start
    n = 0
    while time.monotonic() - start < float(seconds):
        now = time.monotonic()
        if now < due:
            time.sleep(due - now)
        sent = time.monotonic()
        try:
            connection.request("GET", "/me", headers={"Authorization": "Bearer " + tokens[n % len(tokens)]})
            response = connection.getresponse()
            response.read()
            if response.status != 200:
                errors += 1
        except (OSError, http.client.HTTPException):
            errors += 1
            connection = http.client.HTTPConnection("127.0.0.1", int(port), timeout=10)
        latencies.append((time.monotonic() - sent) * 1000)
        n += 1
        due += interval
    latencies.sort()
    pick = lambda q: latencies[min(len(latencies) - 1, int(q * len(latencies)))]
    print("requests=%d errors=%d p50_ms=%.3f p99_ms=%.3f max_ms=%.3f"
          % (len(latencies), errors, pick(0.50), pick(0.99), latencies[-1]))


if __name__ == "__main__":
    main()
