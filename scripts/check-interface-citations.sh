#!/usr/bin/env bash
# Fails when the code, the tests or the docs cite a clause of the interface
# (docs/reference/interface.md, its clauses on docs/reference/interface/*.md)
# that has no heading there. Citations it reads:
#   interface.md 1.9 | interface.md section 3 | interface.md 6 /login 2
#   interface.md 6 /forgot 3-5 | interface.md 1.4, 1.6 and 1.10
#   interface.md 6 /login 4, /forgot 5 | interface.md 6 /forgot 2, 3 and 5
#   test names Interface_1_9_..., Interface_6_Login_2_..., Interface_2_6_And_4_2_...,
#   Rule1_9_... (tests/integration/http_contract_test.cpp)
# A citation may wrap onto the next comment line. Clauses are the headings of
# docs/reference/interface/*.md (and of the index, docs/reference/interface.md):
# "## 6. ...", "### 1.9 ...", "### 6 /login: ...", "#### 6 /login 2. ...".
# The index and the pages themselves are not read for citations.
#
#   bash scripts/check-interface-citations.sh            # src tests fuzz bench docs README.md
#   bash scripts/check-interface-citations.sh src tests  # only these paths
#   bash scripts/check-interface-citations.sh --list     # every cited clause, with its count
set -euo pipefail
cd "$(dirname "$0")/.."
exec python3 - "$@" <<'PY'
import bisect, collections, glob, re, subprocess, sys

args = sys.argv[1:]
list_only = "--list" in args
paths = [a for a in args if a != "--list"] or ["src", "tests", "fuzz", "bench", "docs", "README.md"]
index = "docs/reference/interface.md"
clause_dir = "docs/reference/interface/"
references = [index] + sorted(glob.glob(clause_dir + "*.md"))

files = subprocess.run(["git", "ls-files", "--cached", "--others", "--exclude-standard", "--", *paths],
                       capture_output=True, text=True, check=True).stdout.split()
files = [f for f in files if f != index and not f.startswith(clause_dir) and not f.endswith((".png", ".svg"))
         and f != "scripts/check-interface-citations.sh"]

# The clauses: headings of the reference's pages.
clauses = set()
heading = re.compile(r"^#{2,4}\s+(\d+(?:\.\d+)*)\.?(?:\s+(/[a-z]+)(?:\s+(\d+)\b)?)?")
for reference in references:
    with open(reference, encoding="utf-8") as f:
        for line in f:
            m = heading.match(line)
            if not m:
                continue
            number, route, item = m.groups()
            clauses.add(number)
            if route:
                clauses.add(f"{number} {route}")
                if item:
                    clauses.add(f"{number} {route} {item}")

section_item = re.compile(r"(\d+(?:\.\d+)*)(?:\s+(/[a-z]+)(?:\s+(\d+)(?:-(\d+))?\b)?)?")
route_item = re.compile(r"(/[a-z]+)(?:\s+(\d+)(?:-(\d+))?\b)?")
separator = re.compile(r",\s*(?:and\s+)?|\s+and\s+|\s+to\s+")


def expand(section, route, first, last):
    if route is None:
        return [section]
    if first is None:
        return [f"{section} {route}"]
    return [f"{section} {route} {n}" for n in range(int(first), int(last or first) + 1)]


def prose_citations(text):
    """Clauses cited after each 'interface.md' in `text` (lines already joined)."""
    for m in re.finditer(r"interface\.md\s+(?:sections?\s+)?", text):
        pos, cited = m.end(), []
        section = route = None
        while True:
            rest = text[pos:]
            r = route_item.match(rest)
            s = section_item.match(rest)
            if r and section is not None:  # "6 /login 4, /forgot 5"
                route = r.group(1)
                cited += expand(section, route, r.group(2), r.group(3))
                pos += r.end()
            elif s and route is not None and "." not in s.group(1) and not s.group(2):
                cited += expand(section, route, s.group(1), None)  # "/forgot 2, 3 and 5"
                pos += s.end()
            elif s:
                section, route = s.group(1), s.group(2)
                cited += expand(section, route, s.group(3), s.group(4))
                pos += s.end()
            else:
                break
            sep = separator.match(text[pos:])
            if not sep or not re.match(r"\d|/[a-z]", text[pos + sep.end():]):
                break
            pos += sep.end()
        yield m.start(), cited


def name_citations(text):
    for m in re.finditer(r"\bInterface_((?:\d+_)+)(?:(Login|Logout|Forgot)_((?:\d+_)+))?((?:And_(?:\d+_)+)*)", text):
        section = m.group(1).strip("_").replace("_", ".")
        cited = expand(section, "/" + m.group(2).lower(), m.group(3).strip("_"), None) if m.group(2) \
            else [section]
        for extra in re.findall(r"And_((?:\d+_)+)", m.group(4)):
            cited.append(extra.strip("_").replace("_", "."))
        yield m.start(), cited
    for m in re.finditer(r"\bRule((?:\d+_)+)", text):
        yield m.start(), [m.group(1).strip("_").replace("_", ".")]


leader = re.compile(r"^\s*(?://+|#+|\*+|--|;+)?\s?")
uses = collections.defaultdict(list)
for path in files:
    try:
        with open(path, encoding="utf-8") as f:
            lines = f.read().split("\n")
    except (UnicodeDecodeError, IsADirectoryError, FileNotFoundError):
        continue
    if not any("interface.md" in l or "Interface_" in l or "Rule1_" in l for l in lines):
        continue
    # Join the lines (comment leaders removed) so that a wrapped citation reads whole.
    starts, parts, offset = [], [], 0
    for line in lines:
        body = leader.sub("", line, count=1)
        starts.append(offset)
        parts.append(body)
        offset += len(body) + 1
    text = " ".join(parts)
    for finder in (prose_citations, name_citations):
        for at, cited in finder(text):
            line_number = bisect.bisect_right(starts, at)
            for clause in cited:
                uses[clause].append(f"{path}:{line_number}")


def order(clause):
    return [(0, int(x), "") if x.isdigit() else (1, 0, x) for x in re.split(r"[. ]", clause)]


if list_only:
    for clause in sorted(uses, key=order):
        print(f"{len(uses[clause]):4d}  {clause}{'' if clause in clauses else '   (missing)'}")
    sys.exit(0)

missing = sorted((c for c in uses if c not in clauses), key=order)
total = sum(len(v) for v in uses.values())
if missing:
    print(f"{clause_dir}*.md lack {len(missing)} cited clause(s):")
    for clause in missing:
        print(f"  {clause}: cited at {', '.join(uses[clause][:5])}"
              + (f" and {len(uses[clause]) - 5} more" if len(uses[clause]) > 5 else ""))
    sys.exit(1)
print(f"{clause_dir}*.md: all {len(uses)} cited clauses exist ({total} citations)")
PY
