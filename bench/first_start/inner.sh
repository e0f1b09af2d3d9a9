#!/bin/bash
# Runs inside the chroot (a fresh copy of the pristine Debian 12 rootfs), as root, cwd /root.
# $1 = branch of /srv/authd.git to clone (the commit measured).
set -u
branch=$1
log=/root/measure
mkdir -p "$log"
ts() { echo "$1 $EPOCHREALTIME" >> "$log/times"; }
dpkg-query -W -f='${Package}\n' | sort > "$log/pkgs-0"
ts git_start
# A fresh Debian 12 machine has no git: the user installs it first.
{ apt-get update && apt-get install -y git; } > "$log/git-apt.log" 2>&1
ts git_installed
git clone -b "$branch" /srv/authd.git authd > "$log/clone.log" 2>&1
ts cloned
dpkg-query -W -f='${Package}\n' | sort > "$log/pkgs-1"
ls -l /var/cache/apt/archives/ > "$log/debs-1"
cd authd
git rev-parse HEAD > "$log/commit"
ts start_sh
# BASH_ENV makes start.sh, build.sh and install-deps.sh trace each command
# with a timestamp (the phase split); nothing else changes.
BASH_ENV=/root/trace.sh bash scripts/start.sh > "$log/start.log" 2>&1 &
echo $! > "$log/pid"
wait $!
echo "rc $?" > "$log/start-rc"
ts exited
dpkg-query -W -f='${Package}\n' | sort > "$log/pkgs-2"
ls -l /var/cache/apt/archives/ > "$log/debs-2"
times > "$log/cpu-times"
