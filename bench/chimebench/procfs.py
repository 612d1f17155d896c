"""Figures of running processes from /proc: context switches, time on a CPU and waiting for one, CPU time, and
whether a process still runs."""

import glob
import os


def context_switches(pid, seen):
    """Adds the voluntary+nonvoluntary switch count of every thread of `pid` to `seen` (tid → (name, count))."""
    try:
        tids = os.listdir(f"/proc/{pid}/task")
    except FileNotFoundError:
        return
    for tid in tids:
        try:
            with open(f"/proc/{pid}/task/{tid}/status") as handle:
                text = handle.read()
        except (FileNotFoundError, ProcessLookupError):
            continue
        fields = dict(line.split(":\t", 1) for line in text.splitlines() if ":\t" in line)
        count = int(fields["voluntary_ctxt_switches"]) + int(fields["nonvoluntary_ctxt_switches"])
        seen[int(tid)] = (fields["Name"].strip(), count)


def thread_schedstats(pid):
    """tid → (ns on a CPU, ns waiting for a CPU) of each thread of `pid` (/proc/PID/task/*/schedstat)."""
    stats = {}
    for tid in os.listdir(f"/proc/{pid}/task"):
        try:
            with open(f"/proc/{pid}/task/{tid}/schedstat") as handle:
                fields = handle.read().split()
        except OSError:
            continue
        stats[int(tid)] = (int(fields[0]), int(fields[1]))
    return stats


def process_cpu_ms(pid):
    """User + system CPU time of every thread of `pid`, those that have ended included (/proc/PID/stat; clock
    ticks, 10 ms here)."""
    with open(f"/proc/{pid}/stat") as handle:
        fields = handle.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) * 1000 / os.sysconf("SC_CLK_TCK")


def read_all(pattern):
    """The contents of every file that matches `pattern`, skipping those that vanish meanwhile (/proc)."""
    texts = []
    for path in glob.glob(pattern):
        try:
            with open(path) as handle:
                texts.append(handle.read())
        except OSError:
            pass
    return texts


def alive(pid):
    """Whether `pid` runs: a zombie counts as gone, since this host's PID 1 may not reap what nspawn leaves."""
    try:
        with open(f"/proc/{pid}/status") as handle:
            return not any(line.startswith("State:") and "Z" in line.split()[1] for line in handle)
    except (FileNotFoundError, ProcessLookupError):
        return False
