#!/usr/bin/env bash
# The layers the build enforces (cmake/layers.cmake): with exactly the
# include directories that the layer's sources compile with, each header it
# SEES is found and each header it is BLIND to is not, so that an upward
# include fails to build. A blind header must exist in src/, or the check
# would pass for a misspelt name.
#
#   layers_test.sh CXX SOURCE_ROOT "DIR:DIR:..." "SEES HEADERS" "BLIND HEADERS"
set -euo pipefail
cxx="$1" root="$2" dirs="$3" sees="$4" blind="$5"
flags=(-std=c++20 -E -x c++ -o /dev/null)
IFS=: read -ra include_dirs <<<"$dirs"
for d in "${include_dirs[@]}"; do flags+=(-I "$d"); done
failed=0
for header in $sees; do
  if ! printf '#include "%s"\n' "$header" | "$cxx" "${flags[@]}" - 2>/dev/null; then
    echo "FAIL: $header should be visible"; failed=1
  fi
done
for header in $blind; do
  if [ ! -f "$root/src/$header" ]; then echo "FAIL: $header is not in src/"; failed=1; continue; fi
  if printf '#include "%s"\n' "$header" | "$cxx" "${flags[@]}" - 2>/dev/null; then
    echo "FAIL: $header is visible, which would let an upward include build"; failed=1
  fi
done
[ "$failed" = 0 ] && echo "sees: $sees; blind to: $blind"
exit "$failed"
