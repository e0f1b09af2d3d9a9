#!/usr/bin/env bash
# Fails when a link or a path into docs/ leads nowhere:
# - every relative Markdown link of docs/ and README.md ([text](path#anchor),
#   [text](#anchor)) names a file that exists, and a heading of that page
#   when it has an anchor (GitHub's heading ids);
# - every docs/ path named in src/, tests/, fuzz/, bench/, scripts/, cmake/,
#   packaging/, .ci/ and the docs themselves ("docs/design/performance.md#the-ci-run")
#   exists, with its anchor;
# - nothing outside docs/journal/ cites the journal (docs/README.md may say
#   where it is), and no code, test, script or page outside the journal cites
#   an issue or a stop by number: the reference's clauses and the design
#   pages' anchors are what the code cites.
# The clauses of the interface have their own check
# (scripts/check-interface-citations.sh).
#
#   bash scripts/check-doc-links.sh
set -euo pipefail
cd "$(dirname "$0")/.."
exec python3 - <<'PY'
import os, re, subprocess, sys

files = subprocess.run(["git", "ls-files", "--cached", "--others", "--exclude-standard", "--",
                        "src", "tests", "fuzz", "bench", "scripts", "cmake", "packaging", ".ci",
                        "docs", "README.md", "CMakeLists.txt"],
                       capture_output=True, text=True, check=True).stdout.split()
files = [f for f in files if os.path.isfile(f) and not f.endswith((".png", ".svg"))]
this_script = "scripts/check-doc-links.sh"


def slug(heading):
    """GitHub's id for a heading: lower case, punctuation dropped, spaces to '-'."""
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading)  # links keep their text
    text = text.replace("`", "").strip().lower()
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


anchors_of = {}


def anchors(path):
    if path not in anchors_of:
        found, seen, fenced = set(), {}, False
        with open(path, encoding="utf-8") as f:
            for line in f:
                if line.startswith("```"):
                    fenced = not fenced
                m = None if fenced else re.match(r"^#{1,6}\s+(.*?)\s*#*\s*$", line)
                if m:
                    base = slug(m.group(1))
                    n = seen.get(base, 0)
                    seen[base] = n + 1
                    found.add(base if n == 0 else f"{base}-{n}")
                for a in re.findall(r'<a (?:name|id)="([^"]+)"', line):
                    found.add(a)
        anchors_of[path] = found
    return anchors_of[path]


problems = []


def check_target(where, target_path, anchor):
    if not os.path.exists(target_path):
        problems.append(f"{where}: {target_path} does not exist")
        return
    if anchor and target_path.endswith(".md") and anchor not in anchors(target_path):
        problems.append(f"{where}: {target_path} has no heading #{anchor}")


def in_journal(path):
    return path.startswith("docs/journal/")


md_link = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")
docs_path = re.compile(r"(?<![\w/.-])(docs/[\w./-]+\.(?:md|yaml|png))(?:#([\w-]+))?")
numbered = re.compile(r"\b[Ii]ssues? #?\d+\b|\b[Ss]tops? \d+\b")
checked = 0
for path in files:
    # The journal is a record of its day: its paths are those of then.
    if path == this_script or in_journal(path):
        continue
    try:
        text = open(path, encoding="utf-8").read()
    except UnicodeDecodeError:
        continue
    lines = text.split("\n")
    is_md = path.endswith(".md")
    fenced = False
    for number, line in enumerate(lines, 1):
        where = f"{path}:{number}"
        if is_md and line.startswith("```"):
            fenced = not fenced
        if is_md and not fenced:
            for target in md_link.findall(line):
                if re.match(r"^[a-z]+:", target):  # http:, https:, mailto:
                    continue
                file_part, _, anchor = target.partition("#")
                resolved = path if not file_part else os.path.normpath(
                    os.path.join(os.path.dirname(path), file_part))
                checked += 1
                check_target(where, resolved, anchor)
                if in_journal(resolved) and not in_journal(path) and path != "docs/README.md":
                    problems.append(f"{where}: links into the journal ({resolved})")
        for m in docs_path.finditer(line):
            checked += 1
            check_target(where, m.group(1).rstrip("."), m.group(2))
            if in_journal(m.group(1)) and not in_journal(path) and path != "docs/README.md":
                problems.append(f"{where}: cites the journal ({m.group(1)})")
        if not in_journal(path) and numbered.search(line):
            problems.append(f"{where}: cites an issue or a stop by number: {line.strip()[:100]}")

if problems:
    print(f"{len(problems)} broken link(s) or citation(s):")
    for p in problems:
        print("  " + p)
    sys.exit(1)
print(f"docs links: all {checked} links and docs/ paths lead to a page and heading")
PY
