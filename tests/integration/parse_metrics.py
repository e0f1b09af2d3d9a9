#!/usr/bin/python3
"""Parses Prometheus text format (0.0.4) from stdin with the Prometheus
project's own Python parser (Debian: python3-prometheus-client) and prints
the result as JSON for tests/integration/metrics_test.cpp:

  {"families": {"<name>": {"type": "...", "help": "...",
                           "samples": [{"name": ..., "labels": {...}, "value": ...}]}}}

Exits 1 (with the reason on stdout) when the parser rejects the text, or when
a histogram is not well formed: buckets must be cumulative, the +Inf bucket
must exist and equal _count, and every family must have HELP and TYPE.
"""
import json
import math
import sys

from prometheus_client.parser import text_string_to_metric_families


def fail(reason):
    print(json.dumps({"error": reason}))
    sys.exit(1)


def check_histogram(family):
    series = {}
    for s in family.samples:
        key = tuple(sorted((k, v) for k, v in s.labels.items() if k != "le"))
        entry = series.setdefault(key, {"buckets": [], "count": None, "sum": None})
        if s.name.endswith("_bucket"):
            entry["buckets"].append((float(s.labels["le"]), s.value))
        elif s.name.endswith("_count"):
            entry["count"] = s.value
        elif s.name.endswith("_sum"):
            entry["sum"] = s.value
    for key, entry in series.items():
        buckets = sorted(entry["buckets"])
        if not buckets or not math.isinf(buckets[-1][0]):
            fail(f"{family.name}{dict(key)}: no +Inf bucket")
        values = [v for _, v in buckets]
        if values != sorted(values):
            fail(f"{family.name}{dict(key)}: buckets are not cumulative: {buckets}")
        if entry["count"] is None or entry["sum"] is None:
            fail(f"{family.name}{dict(key)}: _count or _sum missing")
        if entry["count"] != buckets[-1][1]:
            fail(f"{family.name}{dict(key)}: _count {entry['count']} != +Inf {buckets[-1][1]}")


def main():
    text = sys.stdin.read()
    try:
        families = list(text_string_to_metric_families(text))
    except Exception as e:  # the parser raises ValueError and friends
        fail(f"parser rejected the text: {e!r}")
    out = {}
    for family in families:
        if family.type == "unknown" or not family.documentation:
            fail(f"{family.name}: no TYPE or no HELP")
        if family.type == "histogram":
            check_histogram(family)
        out[family.name] = {
            "type": family.type,
            "help": family.documentation,
            "samples": [{"name": s.name, "labels": s.labels, "value": s.value}
                        for s in family.samples],
        }
    print(json.dumps({"families": out}))


main()
