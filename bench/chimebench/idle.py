"""Idle wake-ups: chimed's context switches over a window with nothing due, beside Debian's cron doing the same."""

import json
import os
import shutil
import subprocess
import time

from .instance import Instance, notification
from .processes import spawn, stop_process
from .procfs import context_switches
from .timestamps import utc_text


def start_cron(directory):
    """Debian's cron in the foreground with an empty crontab: in a private mount namespace, /etc/crontab,
    /etc/cron.d and the user crontab spool are empty, and /run is private (its PID file does not clash)."""
    cron = shutil.which("cron") or "/usr/sbin/cron"
    if not os.path.exists(cron):
        raise RuntimeError("cron is not installed (apt-get install cron)")
    empty = os.path.join(directory, "empty")
    run = os.path.join(directory, "run")
    os.makedirs(empty)
    os.makedirs(run)
    crontab = os.path.join(directory, "crontab")
    open(crontab, "w").close()
    script = (
        f"mount --bind {crontab} /etc/crontab && mount --bind {empty} /etc/cron.d && "
        f"mount --bind {run} /run && "
        f"{{ [ ! -d /var/spool/cron/crontabs ] || mount --bind {empty} /var/spool/cron/crontabs; }} && "
        f"exec {cron} -f"
    )
    # unshare and sh exec in place, so the PID we get is cron's own.
    return spawn(
        ["unshare", "--mount", "--propagation", "private", "sh", "-c", script],
        stdin=subprocess.DEVNULL,
        stdout=open(os.path.join(directory, "cron.out"), "wb"),
        stderr=subprocess.STDOUT,
    )


def measure_idle(quick):
    """chimed's context switches, thread by thread, over a window (60 s, 20 with `quick`) in which nothing falls due,
    beside those of Debian's cron with an empty crontab over the same window."""
    window = 20 if quick else 60
    instance = Instance("idle")
    cron = None
    try:
        now = time.time()
        hour_after_next = time.gmtime(now + 3 * 3600)
        instance.write("once.notification", notification("Once", f"At={utc_text(int(now) + 2 * 3600)}"))
        instance.write(
            "daily.notification",
            notification("Daily", f"OnCalendar=*-*-* {hour_after_next.tm_hour:02d}:{hour_after_next.tm_min:02d}:00"),
        )
        instance.write("every.notification", notification("Every", "Every=2h"))
        # One delivery just after the start, before the window: a daemon's idle time comes after deliveries, and
        # the first one is when a runtime may start periodic housekeeping (libdispatch's workqueue monitor does).
        instance.write("warm-up.notification", notification("Warm-up", f"At={utc_text(int(now) + 2)}"))
        instance.start()
        cron = start_cron(instance.directory)
        instance.wait_ready()
        time.sleep(4)  # the warm-up delivered, start-up settled: snapshot written, load queue idle
        if not any('"warm-up"' in line for line in open(instance.stdout_path)):
            raise RuntimeError("idle: the warm-up notification was not delivered before the window")
        with open(f"/proc/{cron.pid}/comm") as handle:
            if handle.read().strip() != "cron":
                raise RuntimeError(f"cron did not start: {open(os.path.join(instance.directory, 'cron.out')).read()}")
        with open(os.path.join(instance.runtime, "schedule.json")) as handle:
            nearest = min(item["next"] for item in json.load(handle)["scheduled"])
        figures = {}
        first = {"chimed": {}, "cron": {}}
        last = {"chimed": {}, "cron": {}}
        pids = {"chimed": instance.proc.pid, "cron": cron.pid}
        for name, pid in pids.items():
            context_switches(pid, first[name])
        started = time.monotonic()
        # Reading /proc/PID/task/*/status wakes nobody; sampling every second catches threads that come and go.
        while time.monotonic() - started < window:
            time.sleep(1)
            for name, pid in pids.items():
                context_switches(pid, last[name])
        elapsed = time.monotonic() - started
        for name in pids:
            before, after = first[name], last[name]
            delta = sum(count - before.get(tid, (None, 0))[1] for tid, (_, count) in after.items())
            figures[name] = {
                "switches": delta,
                "per_hour": round(delta * 3600 / elapsed, 1),
                "threads": len(after),
                "threads_started_in_window": len(set(after) - set(before)),
                "by_thread": {
                    f"{tid} {label}": count - before.get(tid, (None, 0))[1]
                    for tid, (label, count) in sorted(after.items())
                },
            }
        figures["window_s"] = round(elapsed, 1)
        figures["next_fire"] = nearest
    finally:
        if cron is not None:
            stop_process(cron)
        instance.close()
    return figures
