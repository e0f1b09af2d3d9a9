#!/bin/bash
# The README's first command on a fresh Debian 12 machine, timed from clone
# to serving (docs/guide/getting-started.md#the-first-start). As root, with
# port 8080 free, after bench/first_start/make-base.sh:
#
#   bash bench/first_start/run.sh LABEL before|after
#   python3 bench/first_start/report.py LABEL
#
# Times, on a fresh copy of the pristine Debian 12 rootfs $F/base:
# apt-get install git, git clone -b BRANCH (of $F/repo.git, a bare copy of
# this repository), cd authd && bash scripts/start.sh, until
# http://127.0.0.1:8080/healthz answers; then stops authd and unmounts.
set -euo pipefail
label=$1 branch=$2
BIN=$(cd "$(dirname "$0")" && pwd)
F=${FIRST_START_DIR:-/var/tmp/authd-first-start}
R=$F/runs/$label
root=$R/root
cg=/sys/fs/cgroup/cpuacct/fresh-$label
[ -e "$R" ] && { echo "$R exists" >&2; exit 1; }
if ss -ltn 'sport = :8080' | grep -q LISTEN; then echo "8080 busy" >&2; ss -ltnp 'sport = :8080' >&2; exit 1; fi
mkdir -p "$R"
cp -a "$F/base" "$root"
cp "$BIN/inner.sh" "$BIN/trace.sh" "$root/root/"
cp /etc/resolv.conf "$root/etc/resolv.conf"
mkdir -p "$root/srv/authd.git"

sampler=""
cleanup() {
  set +e
  [ -n "$sampler" ] && kill "$sampler" 2>/dev/null
  # any process still inside this chroot (by its root directory)
  for p in /proc/[0-9]*; do
    [ "$(readlink "$p/root" 2>/dev/null)" = "$root" ] && kill -KILL "${p#/proc/}" 2>/dev/null
  done
  sleep 1
  for m in srv/authd.git proc sys dev; do
    mountpoint -q "$root/$m" && umount -R "$root/$m"
  done
  [ -d "$cg" ] && { cat "$cg/cpuacct.usage" > "$R/cg-usage-final"; rmdir "$cg"; }
  grep -q " $root" /proc/mounts && echo "WARNING: mounts left under $root" >&2
}
trap cleanup EXIT

mount --bind "$F/repo.git" "$root/srv/authd.git"
mount -o remount,bind,ro "$root/srv/authd.git"
mount -t proc proc "$root/proc"
mount --rbind /sys "$root/sys"; mount --make-rslave "$root/sys"
mount --rbind /dev "$root/dev"; mount --make-rslave "$root/dev"
mkdir "$cg"

uptime > "$R/uptime-start"
( while :; do
    echo "$EPOCHREALTIME $(cut -d' ' -f1-3 /proc/loadavg) $(head -1 /proc/stat | cut -d' ' -f3-) cg $(cat "$cg/cpuacct.usage")"
    sleep 5
  done ) > "$R/samples" 2>/dev/null &
sampler=$!

t0=$EPOCHREALTIME
echo "host_start $t0" > "$R/host-times"
( echo $BASHPID > "$cg/tasks"
  exec chroot "$root" /usr/bin/env -i HOME=/root LANG=C.UTF-8 TERM=dumb \
    PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
    /bin/bash -c "cd /root && bash inner.sh $branch" ) > "$R/inner.out" 2>&1 &
inner=$!

m=$root/root/measure
deadline=$(( $(date +%s) + 5400 ))
while :; do
  if ! kill -0 "$inner" 2>/dev/null; then echo "inner exited before healthz" >&2; exit 1; fi
  if [ -s "$m/pid" ] && body=$(curl -fs -m 2 http://127.0.0.1:8080/healthz); then
    echo "healthy $EPOCHREALTIME" >> "$R/host-times"
    echo "$body" > "$R/healthz-body"
    break
  fi
  [ "$(date +%s)" -gt "$deadline" ] && { echo "timeout" >&2; exit 1; }
  sleep 0.25
done
ss -ltnp 'sport = :8080' > "$R/listener"
pid=$(cat "$m/pid")
grep -q "pid=$pid," "$R/listener" || echo "WARNING: listener is not pid $pid" >&2
uptime > "$R/uptime-end"
kill -TERM "$pid"
wait "$inner" || true
echo "inner_done $EPOCHREALTIME" >> "$R/host-times"
cp -a "$m" "$R/measure"
echo "run $label done"
