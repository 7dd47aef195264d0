#!/usr/bin/env python3
"""Times commands in turn, round after round, so that a machine whose speed drifts (this one's
moved by a third within an hour) slows each of them alike: hyperfine runs all of one command's
runs before the next command's.

    N=30 PREP='rm -rf /tmp/store' bench/interleave.py 'rg -c unsafe TREE' 'SPOOL_HOME=/tmp/store spool search -F unsafe TREE --json'

Each round runs PREP (if given) before each command; the first two rounds are warm-up. Prints
each command's median and mean wall time, its mean CPU time (user + system, from wait4), and its
median divided by the first command's; then the share of the machine's CPU time the host took
back while the rounds ran (steal, from /proc/stat): on a busy host the wall times swell for
every command alike, and only the CPU times compare across runs. With JSON=FILE, the same
figures are written to FILE too: {"results": [{"command", "median", "mean", "cpu"}, ...],
"stolen"} (milliseconds; stolen a share, or null).
"""
import json
import os
import statistics
import subprocess
import sys
import time

rounds = int(os.environ.get("N", "20"))
prep = os.environ.get("PREP")
commands = sys.argv[1:]


def cpu_times():
    """The machine's CPU times (jiffies): all of them, and the stolen ones; None off Linux."""
    try:
        with open("/proc/stat") as f:
            fields = [int(x) for x in f.readline().split()[1:]]
    except OSError:
        return None
    # user nice system idle iowait irq softirq steal (guest time is counted in user already).
    return sum(fields[:8]), fields[7] if len(fields) > 7 else 0


wall = {c: [] for c in commands}
at_start = cpu_times()
cpu = {c: [] for c in commands}
for r in range(rounds + 2):
    for c in commands:
        if prep:
            subprocess.run(prep, shell=True, check=True)
        start = time.perf_counter()
        p = subprocess.Popen(c, shell=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        _, _, usage = os.wait4(p.pid, 0)
        took = time.perf_counter() - start
        if r >= 2:
            wall[c].append(took * 1000)
            cpu[c].append((usage.ru_utime + usage.ru_stime) * 1000)
first = statistics.median(wall[commands[0]])
for c in commands:
    median = statistics.median(wall[c])
    print(
        f"{median:7.1f} ms median {statistics.mean(wall[c]):7.1f} ms mean"
        f"  cpu {statistics.mean(cpu[c]):6.1f} ms  {median / first:.2f}x  {c}"
    )
at_end = cpu_times()
stolen = None
if at_start and at_end and at_end[0] > at_start[0]:
    stolen = (at_end[1] - at_start[1]) / (at_end[0] - at_start[0])
    print(f"host: {stolen:.0%} of the CPU time stolen while the rounds ran")
if os.environ.get("JSON"):
    with open(os.environ["JSON"], "w") as f:
        json.dump(
            {
                "results": [
                    {
                        "command": c,
                        "median": statistics.median(wall[c]),
                        "mean": statistics.mean(wall[c]),
                        "cpu": statistics.mean(cpu[c]),
                    }
                    for c in commands
                ],
                "stolen": stolen,
            },
            f,
        )
