#!/usr/bin/env bash
# Style and static analysis, both failing on any finding:
#   1. clang-format (.clang-format) over every tracked *.cpp and *.hpp under
#      src/ tests/ fuzz/ bench/: lists the files it would change;
#   2. clang-tidy (.clang-tidy) over the sources of src/.
#
#   bash scripts/lint.sh                  # both, every source of src/
#   bash scripts/lint.sh --since main     # clang-tidy only on what changed since main
#   bash scripts/lint.sh --fast           # clang-tidy without clang-analyzer-* (a quarter less)
#   bash scripts/lint.sh --format-only    # clang-format only (under a second)
#   bash scripts/lint.sh --tidy-only src/api/login.cpp src/http/server.cpp
#
# Options:
#   --build-dir DIR  a build directory whose compile_commands.json to use, as
#                    it is (it must name each source: configured with
#                    -DCMAKE_DISABLE_PRECOMPILE_HEADERS=ON -DAUTHD_UNITY_BUILD=OFF).
#                    By default the script configures build-lint/ that way
#                    itself (CMake only, nothing is compiled; no source of
#                    src/ includes a generated file). build/ does not do: the
#                    compile database of scripts/build.sh names the unity
#                    batches and GCC's precompiled headers, not the sources.
#   -j N             clang-tidy processes at once (default: number of cores).
#   --since REF      only the .cpp files changed since the branch left REF
#                    (git diff from the merge base, working tree included),
#                    plus the .cpp files that include a changed header
#                    directly: the cheap scope for a pull request.
#   --fast           leave out clang-analyzer-*, about a quarter of the CPU
#                    time (parsing Boost and Beast is most of the rest).
#   --format-only, --tidy-only
#
# Debian 12's clang 14 cannot parse libstdc++ 12's coroutines, which
# Boost.Asio's awaitable needs; clang-tidy therefore reads the sources against
# LLVM's libc++ (as fuzz/ builds them), so that the coroutine code is analysed
# too.
#
# Clean results are cached (AUTHD_TIDY_CACHE_DIR, default
# ~/.cache/authd/clang-tidy; AUTHD_TIDY_CACHE=off to analyse everything):
# a source is analysed again only when its translation unit, the checks or
# the tools changed. Preprocessing every source costs about a second each.
#
# Time (clang-tidy 14, the 60 sources of src/, 2 cores shared with other
# builds, load 5 to 9): the whole run took 875 s with -j 1 (535 s of CPU,
# so about 4.5 minutes with -j 2 on an idle machine); --fast 725 s (391 s of
# CPU, about 3.3 minutes with -j 2); --since costs about 9 s of CPU per
# source it picks. clang-format takes under a second.
set -euo pipefail
cd "$(dirname "$0")/.."

build_dir=""
jobs="$(nproc)"
since=""
fast=0
do_format=1
do_tidy=1
files=()
while [ $# -gt 0 ]; do
  case "$1" in
    --build-dir) build_dir="$2"; shift 2 ;;
    -j) jobs="$2"; shift 2 ;;
    -j*) jobs="${1#-j}"; shift ;;
    --since) since="$2"; shift 2 ;;
    --fast) fast=1; shift ;;
    --format-only) do_tidy=0; shift ;;
    --tidy-only) do_format=0; shift ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    -*) echo "lint: unknown option $1" >&2; exit 2 ;;
    *) files+=("$1"); shift ;;
  esac
done

# The tools, installed as scripts/install-deps.sh installs packages. The
# format check needs clang-format alone; clang-tidy reads the sources with
# every library's headers and configures CMake, so it needs what the build
# needs (install-deps.sh, as scripts/build.sh runs it; it lists clang-tidy,
# clang-format and libc++-14-dev too, and is quick when all is there).
install_packages() {
  local missing=() p
  for p in "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
  done
  [ ${#missing[@]} -gt 0 ] || return 0
  echo "lint: installing ${missing[*]}" >&2
  local sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  export DEBIAN_FRONTEND=noninteractive
  $sudo apt-get update -qq
  $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
}
[ $do_format -eq 0 ] || install_packages clang-format
[ $do_tidy -eq 0 ] || bash scripts/install-deps.sh

status=0

if [ $do_format -eq 1 ]; then
  mapfile -t sources < <(git ls-files 'src/*.cpp' 'src/*.hpp' 'tests/*.cpp' 'tests/*.hpp' \
    'fuzz/*.cpp' 'fuzz/*.hpp' 'bench/*.cpp' 'bench/*.hpp')
  # clang-format exits non-zero when a file would change: that is the
  # finding, listed below, not a reason for set -e to end the script here.
  unformatted="$({ clang-format --dry-run --Werror "${sources[@]}" 2>&1 || true; } |
    sed -n 's/^\([^:]*\.[ch]pp\):[0-9]*:[0-9]*: error: .*/\1/p' | sort -u)"
  if [ -n "$unformatted" ]; then
    echo "clang-format would change $(wc -l <<<"$unformatted") file(s) (fix: clang-format -i FILE):"
    sed 's/^/  /' <<<"$unformatted"
    status=1
  else
    echo "clang-format: ${#sources[@]} files, all formatted"
  fi
fi

[ $do_tidy -eq 1 ] || exit $status

if [ ${#files[@]} -eq 0 ]; then
  if [ -n "$since" ]; then
    base="$(git merge-base "$since" HEAD)"
    mapfile -t changed < <(git diff --name-only "$base" -- 'src/*.cpp' 'src/*.hpp')
    declare -A pick=()
    for f in "${changed[@]}"; do
      [ -f "$f" ] || continue
      case "$f" in
        *.cpp) pick["$f"]=1 ;;
        *.hpp)
          while IFS= read -r includer; do pick["$includer"]=1; done < <(
            git grep -l -F "#include \"${f#src/}\"" -- 'src/*.cpp' || true)
          ;;
      esac
    done
    files=("${!pick[@]}")
    if [ ${#files[@]} -eq 0 ]; then
      echo "clang-tidy: no source of src/ changed since $since"
      exit $status
    fi
  else
    mapfile -t files < <(git ls-files 'src/*.cpp')
  fi
fi

if [ -z "$build_dir" ]; then
  build_dir=build-lint
  cmake -S . -B "$build_dir" -G Ninja -DCMAKE_DISABLE_PRECOMPILE_HEADERS=ON \
    -DAUTHD_UNITY_BUILD=OFF -DAUTHD_TESTS=OFF >/dev/null
elif [ ! -f "$build_dir/compile_commands.json" ]; then
  echo "lint: no $build_dir/compile_commands.json" >&2
  exit 2
elif grep -qE 'Unity/unity_|cmake_pch' "$build_dir/compile_commands.json"; then
  echo "lint: $build_dir was configured with the unity build or precompiled headers;" \
    "clang-tidy needs one entry per source (leave out --build-dir to use build-lint/)" >&2
  exit 2
fi

tidy_args=(-p "$build_dir" --quiet
  --extra-arg=-Wno-unknown-warning-option
  --extra-arg=-stdlib=libc++
  --extra-arg=-D_LIBCPP_ENABLE_CXX20_REMOVED_TYPE_TRAITS)  # Boost 1.74 still names std::result_of
[ $fast -eq 0 ] || tidy_args+=(--checks=-clang-analyzer-*)

out_dir="$(mktemp -d)"
trap 'rm -rf "$out_dir"' EXIT
export out_dir

# The cache of clean results: a source whose whole translation unit (the
# preprocessed text, with the checkout's path taken out), checks, options
# and tool versions are those of an earlier run without finding is not
# analysed again. A source with findings is never cached, so they are
# reported every time. Off with AUTHD_TIDY_CACHE=off.
export tidy_cache=""
if [ "${AUTHD_TIDY_CACHE:-on}" != off ]; then
  tidy_cache="${AUTHD_TIDY_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/authd/clang-tidy}"
  mkdir -p "$tidy_cache"
  export tidy_salt
  tidy_salt="$({ clang-tidy --version; cat .clang-tidy; printf '%s\n' "${tidy_args[@]}"
    dpkg-query -W libc++-14-dev libboost-dev clang-tidy-14 2>/dev/null; } | sed "s#$PWD#@ROOT@#g" | sha256sum | cut -c1-64)"
  # One preprocessing command per source, from the compile database: the
  # compiler's own command with -E -P in place of -c and -o.
  mkdir -p "$out_dir/preprocess"
  /usr/bin/python3 - "$build_dir/compile_commands.json" "$out_dir/preprocess" "$PWD" <<'PY'
import json, os, shlex, sys
database, target, root = sys.argv[1:]
for entry in json.load(open(database)):
    words = shlex.split(entry["command"])
    kept, skip = [], False
    for w in words:
        if skip: skip = False; continue
        if w == "-o": skip = True; continue
        if w == "-c": continue
        kept.append(w)
    name = os.path.relpath(entry["file"], root).replace("/", "_")
    with open(os.path.join(target, name + ".sh"), "w") as out:
        out.write("cd " + shlex.quote(entry["directory"]) + " && " + shlex.join(kept[:-1] + ["-E", "-P", kept[-1]]) + "\n")
PY
fi

start=$SECONDS
printf '%s\n' "${files[@]}" | sort | xargs -P "$jobs" -I{} bash -c '
  f="$1"; shift
  log="$out_dir/$(tr / _ <<<"$f").log"
  key=""
  if [ -n "$tidy_cache" ] && [ -f "$out_dir/preprocess/$(tr / _ <<<"$f").sh" ]; then
    key="$( { echo "$tidy_salt $f"; bash "$out_dir/preprocess/$(tr / _ <<<"$f").sh" 2>/dev/null; } |
      sed "s#$PWD#@ROOT@#g" | sha256sum | cut -c1-64)"
    if [ -f "$tidy_cache/$key" ]; then : >"$log"; exit 0; fi
  fi
  clang-tidy "$@" "$f" >"$log" 2>&1 || true
  # Clean: nothing but clang-tidy'"'"'s counts of suppressed warnings.
  if [ -n "$key" ] && ! grep -qE "(warning|error):" "$log"; then : >"$tidy_cache/$key"; fi
' _ {} "${tidy_args[@]}"
elapsed=$((SECONDS - start))

# A finding in a header shows up once per source that includes it: list each
# once, as path:line:column: check. A finding that clang-analyzer places in a
# library header (its path ends there) is listed at the first place in the
# repository on that path, marked "(in PATH)".
findings="$(cat "$out_dir"/*.log | awk -v root="$PWD/" '
  function flush() { if (pending != "") print pending; pending = "" }
  match($0, /^[^ :]+:[0-9]+:[0-9]+: (warning|error): .*\[[^],]+/) {
    flush()
    where = $0; sub(/: (warning|error): .*/, "", where)
    check = $0; sub(/.*\[/, "", check); sub(/[],].*/, "", check)
    if (index(where, root) == 1) { print substr(where, length(root) + 1) ": " check; next }
    if (where !~ /^\//) { print where ": " check; next }
    outside = where; pending = where ": " check; next
  }
  pending != "" && index($0, root) == 1 && $0 ~ /: note: / {
    here = $0; sub(/: note: .*/, "", here)
    print substr(here, length(root) + 1) ": " check " (in " outside ")"; pending = ""
  }
  END { flush() }' | sort -u -t: -k1,1 -k2,2n -k3,3n)"
if [ -n "$findings" ]; then
  cat "$out_dir"/*.log | grep -vE '^[0-9]+ (warnings?|errors?) generated\.$|^Suppressed [0-9]+ warnings|^Use -header-filter|^Error while processing' || true
  echo
  echo "clang-tidy: $(wc -l <<<"$findings") finding(s) in ${#files[@]} file(s), ${elapsed} s with -j $jobs:"
  sed 's/^/  /' <<<"$findings"
  status=1
else
  echo "clang-tidy: ${#files[@]} file(s), no finding, ${elapsed} s with -j $jobs"
fi
exit $status
