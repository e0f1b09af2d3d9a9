# Sourced by the walkthrough scripts (tests/readme_front_door.sh,
# tests/readme_walkthrough.sh, tests/operations_walkthrough.sh): a fresh
# working folder to run the docs' blocks in, entered, and removed at exit
# together with the authd the script started ($pid, when set).
#
#   enter_work_dir NAME   # /tmp/authd-NAME-XXXXXX
pid=""
enter_work_dir() {
  work="$(mktemp -d "/tmp/authd-$1-XXXXXX")"
  trap cleanup_work_dir EXIT
  cd "$work"
}
cleanup_work_dir() {
  if [ -n "$pid" ]; then kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; fi
  rm -rf "$work"
}
