#!/usr/bin/env python3
"""bench/proc-cost.py - what a set of processes costs the host while idle:
memory (PSS from /proc/PID/smaps_rollup, shared pages split between their
users, so sums add up) and, over a window, CPU time (utime+stime) and
wake-ups (times a thread was scheduled in, the third field of each thread's
/proc/PID/task/TID/schedstat; a thread that sleeps until an event and runs
once counts one).

Input on stdin, one line a root: "GROUP LABEL PID". Each root's descendants
are counted with it under the same label, unless they are roots themselves.
Output: one row a label (summed over groups: "per group" divides by their
number), then the total; --rows prints every process.

  proc-cost.py [--window SECONDS] [--rows] < roots
"""
import argparse
import os
import sys
import time


def read(path):
    try:
        with open(path) as f:
            return f.read()
    except OSError:
        return None


def children_map():
    kids = {}
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        s = read("/proc/%s/stat" % d)
        if s is None:
            continue
        ppid = int(s[s.rindex(")") + 2:].split()[1])
        kids.setdefault(ppid, []).append(int(d))
    return kids


def pss_kb(pid):
    s = read("/proc/%d/smaps_rollup" % pid)
    if s is None:
        return 0
    for line in s.splitlines():
        if line.startswith("Pss:"):
            return int(line.split()[1])
    return 0


def sample(pid):
    """(cpu ticks, wake-ups) summed over the process's threads."""
    cpu = wakes = 0
    try:
        tids = os.listdir("/proc/%d/task" % pid)
    except OSError:
        return None
    for t in tids:
        st = read("/proc/%d/task/%s/stat" % (pid, t))
        sc = read("/proc/%d/task/%s/schedstat" % (pid, t))
        if st is None or sc is None:
            continue
        f = st[st.rindex(")") + 2:].split()
        cpu += int(f[11]) + int(f[12])
        wakes += int(sc.split()[2])
    return cpu, wakes


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--window", type=float, default=60)
    ap.add_argument("--rows", action="store_true")
    a = ap.parse_args()
    roots, groups = {}, set()
    for line in sys.stdin:
        w = line.split()
        if len(w) == 3 and w[2].isdigit() and int(w[2]) > 0:
            roots[int(w[2])] = (w[0], w[1])
            groups.add(w[0])
    kids = children_map()
    procs = {}
    for pid, gl in roots.items():
        todo = [pid]
        while todo:
            p = todo.pop()
            if p in procs or (p != pid and p in roots):
                continue
            procs[p] = gl
            todo.extend(kids.get(p, []))
    hz = os.sysconf("SC_CLK_TCK")
    s0 = {p: sample(p) for p in procs}
    time.sleep(a.window)
    s1 = {p: sample(p) for p in procs}
    rows = []
    for p, (g, label) in procs.items():
        comm = (read("/proc/%d/comm" % p) or "?").strip()
        if s0[p] is None or s1[p] is None:
            continue
        cpu = (s1[p][0] - s0[p][0]) * 1000.0 / hz
        wk = s1[p][1] - s0[p][1]
        rows.append((g, label, p, comm, pss_kb(p), cpu, wk))
    n = max(len(groups), 1)
    by = {}
    for g, label, p, comm, pss, cpu, wk in rows:
        b = by.setdefault(label, [0, 0.0, 0, set()])
        b[0] += pss
        b[1] += cpu
        b[2] += wk
        b[3].add(comm)
    if a.rows:
        for r in sorted(rows):
            print("  %-10s %-12s %7d %-16s PSS %7d kB  CPU %7.1f ms  wake-ups %6d" % r)
    print("%-14s %10s %12s %14s  (per group of %d, over %.0f s)" %
          ("process", "PSS MiB", "CPU ms", "wake-ups", n, a.window))
    tot = [0, 0.0, 0]
    for label in sorted(by):
        b = by[label]
        print("%-14s %10.1f %12.1f %14.1f  %s" % (label, b[0] / 1024.0 / n, b[1] / n,
              b[2] / float(n), ",".join(sorted(b[3]))[:60]))
        tot[0] += b[0]
        tot[1] += b[1]
        tot[2] += b[2]
    print("%-14s %10.1f %12.1f %14.1f" % ("total", tot[0] / 1024.0 / n, tot[1] / n,
          tot[2] / float(n)))


if __name__ == "__main__":
    main()
