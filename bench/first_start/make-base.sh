#!/bin/bash
# Once: the pristine Debian 12 rootfs ($F/base) and a bare copy of this
# repository that the chroot clones from ($F/repo.git), with the branches
# "before" and "after" at the commits given (default: HEAD for both).
#
#   bash bench/first_start/make-base.sh [BEFORE_COMMIT [AFTER_COMMIT]]
set -euo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
before=$(git -C "$repo" rev-parse "${1:-HEAD}")
after=$(git -C "$repo" rev-parse "${2:-HEAD}")
F=${FIRST_START_DIR:-/var/tmp/authd-first-start}
command -v debootstrap >/dev/null || apt-get install -y debootstrap
# default variant (required + important priority: what a Debian 12 install
# has; no git, no curl, no compiler)
debootstrap --arch=amd64 bookworm "$F/base" http://deb.debian.org/debian
rm -f "$F"/base/var/lib/apt/lists/*_*
cat > "$F/base/etc/apt/sources.list" <<'EOS'
deb http://deb.debian.org/debian bookworm main
deb http://deb.debian.org/debian bookworm-updates main
deb http://deb.debian.org/debian-security bookworm-security main
EOS
# In a chroot, keep packages' services (nginx, PostgreSQL, HAProxy) from
# starting on the shared host.
printf '#!/bin/sh\nexit 101\n' > "$F/base/usr/sbin/policy-rc.d"; chmod 755 "$F/base/usr/sbin/policy-rc.d"
git clone -q --bare --no-local "$repo" "$F/repo.git"
git -C "$F/repo.git" branch -f before "$before"
git -C "$F/repo.git" branch -f after "$after"
