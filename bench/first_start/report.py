#!/usr/bin/env python3
# Summarises $FIRST_START_DIR/runs/LABEL (bench/first_start/run.sh): phases,
# packages, download size, load, CPU.
import os, re, sys
R = os.path.join(os.environ.get("FIRST_START_DIR", "/var/tmp/authd-first-start"), "runs", sys.argv[1])
M = f"{R}/measure"
times = dict(l.split() for l in open(f"{M}/times"))
times = {k: float(v) for k, v in times.items()}
host = {k: float(v) for k, v in (l.split() for l in open(f"{R}/host-times"))}
trace = open(f"{M}/start.log", errors="replace").read().splitlines()
def first(pat):
    for l in trace:
        m = re.match(r"^\++ (\d+\.\d+) " + pat, l)
        if m: return float(m.group(1))
    return None
t_deps = first(r"bash scripts/install-deps\.sh")
t_cmake = first(r"cmake -S ")
t_exec = first(r"exec /root/authd/build/authd serve")
t_aptinst = first(r"apt-get install")
import calendar, time as _t
t_dpkg = None
for l in open(f"{R}/dpkg.log" if os.path.exists(f"{R}/dpkg.log") else f"{R}/root/var/log/dpkg.log"):
    e = calendar.timegm(_t.strptime(l[:19], "%Y-%m-%d %H:%M:%S"))
    if e >= int(t_aptinst): t_dpkg = e; break
t0 = times["git_start"]; ok = host["healthy"]
ph = [("git install (apt-get update + install git)", t0, times["git_installed"]),
      ("git clone", times["git_installed"], times["cloned"]),
      ("start.sh: apt (install-deps)", times["start_sh"], t_cmake),
      ("start.sh: build (cmake configure + build)", t_cmake, t_exec),
      ("start: exec authd -> /healthz answers", t_exec, ok)]
print("commit", open(f"{M}/commit").read().strip())
for n, a, b in ph: print(f"  {n:45s} {b-a:7.1f} s")
print(f"    (apt-get update {t_aptinst-first(r'apt-get update'):.1f} s, download {t_dpkg-t_aptinst:.0f} s, dpkg unpack+configure {t_cmake-t_dpkg:.0f} s; 1-s resolution)")
print(f"  {'TOTAL clone step start -> healthz':45s} {ok-t0:7.1f} s  ({(ok-t0)/60:.1f} min)")
p = [set(open(f"{M}/pkgs-{i}").read().split()) for i in range(3)]
def debsize(f):
    s = 0; n = 0
    for l in open(f):
        if l.rstrip().endswith(".deb"): s += int(l.split()[4]); n += 1
    return s, n
s1, n1 = debsize(f"{M}/debs-1"); s2, n2 = debsize(f"{M}/debs-2")
print(f"  packages by git step: {len(p[1]-p[0])} new; by start.sh: {len(p[2]-p[1])} new; .debs downloaded by start.sh: {n2-n1}, {(s2-s1)/1e6:.1f} MB")
print("  uptime start:", open(f"{R}/uptime-start").read().strip())
print("  uptime end:  ", open(f"{R}/uptime-end").read().strip())
# samples: epoch l1 l5 l15 user nice system idle iowait irq softirq steal guest gnice cg usage_ns
S = []
for l in open(f"{R}/samples"):
    f = l.split()
    if len(f) < 16: continue
    t = float(f[0]); la = float(f[1]); st = list(map(int, f[4:14])); cg = int(f[15])
    busy = sum(st) - st[3] - st[4]
    S.append((t, la, busy, cg))
HZ = os.sysconf("SC_CLK_TCK")
for n, a, b in ph[2:4]:
    ss = [s for s in S if a <= s[0] <= b]
    if len(ss) < 2: continue
    dt = ss[-1][0] - ss[0][0]
    tot = (ss[-1][2] - ss[0][2]) / HZ
    ours = (ss[-1][3] - ss[0][3]) / 1e9
    las = [s[1] for s in ss]
    print(f"  {n}: load1 min/avg/max {min(las):.1f}/{sum(las)/len(las):.1f}/{max(las):.1f}; machine CPU {tot/dt:.2f} of 2 cores, ours {ours/dt:.2f}, others {(tot-ours)/dt:.2f}")
print("  cpu times (inner children):", " ".join(open(f"{M}/cpu-times").read().split()))
print("  healthz:", open(f"{R}/healthz-body").read().strip()[:100])
