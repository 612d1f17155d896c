"""One chimed on a fresh temporary configuration, as every measurement runs it: the text of its notification files,
its start, its READY=1 and its rebuilds on SIGHUP, its deliveries and its figures in /proc."""

import json
import os
import shutil
import signal
import subprocess
import tempfile
import time

from . import settings
from .notify import NotifySocket
from .processes import spawn, stop_process
from .timestamps import iso_us


class Instance:
    """One chimed on a fresh directory: config/, run/, state/, stdout and stderr captured in files."""

    def __init__(self, label):
        self.directory = tempfile.mkdtemp(prefix=f"chimed-bench-{label}-")
        # The runtime directory (PID file, schedule.json, which chimed fsyncs after every fire and before every
        # READY=1) goes on tmpfs, as /run/chime does on a systemd host; /run is not tmpfs in this container.
        self.runtime = tempfile.mkdtemp(prefix=f"chimed-bench-{label}-run-", dir=settings.RUNTIME_BASE)
        self.config = os.path.join(self.directory, "config")
        os.makedirs(self.config)
        self.stdout_path = os.path.join(self.directory, "stdout.jsonl")
        self.stderr_path = os.path.join(self.directory, "stderr.log")
        self.notify = NotifySocket(os.path.join(self.directory, "notify.sock"))
        self.proc = None
        self.exec_ns = None

    def write(self, name, text):
        with open(os.path.join(self.config, name), "w") as handle:
            handle.write(text)

    def start(self, wrapper=(), arguments=(), environment=None):
        """Starts chimed, through `wrapper` (a command that execs its arguments, such as chrt) if given, with
        `arguments` added and `environment` over its own."""
        env = dict(os.environ, NOTIFY_SOCKET=self.notify.path, **(environment or {}))
        env.pop("WATCHDOG_USEC", None)
        env.pop("WATCHDOG_PID", None)
        argv = [
            *wrapper,
            settings.CHIMED,
            f"--config-dir={self.config}",
            f"--runtime-dir={self.runtime}",
            f"--state-dir={self.directory}/state",
            "--deliver=stdout",
            *arguments,
        ]
        with open(self.stdout_path, "wb") as out, open(self.stderr_path, "wb") as err:
            self.exec_ns = time.time_ns()
            self.proc = spawn(argv, env=env, stdin=subprocess.DEVNULL, stdout=out, stderr=err)
        return self

    def wait_ready(self, timeout=60):
        """chimed's READY=1: (arrival ns since the epoch, {KEY: VALUE})."""
        return self.notify.wait_for("READY", timeout, self.proc)

    def deliveries(self):
        """Every stdout delivery line written so far, as (id, fire µs, delivered µs)."""
        rows = []
        with open(self.stdout_path, "rb") as handle:
            for raw in handle:
                if not raw.endswith(b"\n"):
                    break
                line = json.loads(raw)
                rows.append((line["id"], iso_us(line["fire_time"]), iso_us(line["delivered_at"])))
        return rows

    def line_count(self):
        with open(self.stdout_path, "rb") as handle:
            return handle.read().count(b"\n")

    def status(self, key):
        """A field of /proc/PID/status in kB (VmHWM, VmRSS) or as a number."""
        with open(f"/proc/{self.proc.pid}/status") as handle:
            for line in handle:
                if line.startswith(key + ":"):
                    return int(line.split()[1])
        return None

    def reset_peak(self):
        """Starts VmHWM again from the present resident size (clear_refs 5, Linux 4.0), so that the next reading
        is the peak of what happens after."""
        with open(f"/proc/{self.proc.pid}/clear_refs", "w") as handle:
            handle.write("5")

    def schedstat(self):
        """(ns on a CPU, ns runnable but waiting for a CPU) summed over chimed's threads (/proc/PID/task/*/schedstat).

        The second says how much of a wall-clock figure was other work holding both cores, not chimed's own."""
        running = waiting = 0
        for tid in os.listdir(f"/proc/{self.proc.pid}/task"):
            try:
                with open(f"/proc/{self.proc.pid}/task/{tid}/schedstat") as handle:
                    fields = handle.read().split()
            except FileNotFoundError:
                continue
            running += int(fields[0])
            waiting += int(fields[1])
        return running, waiting

    def close(self, keep=False):
        if self.proc is not None:
            stop_process(self.proc)
        self.notify.close()
        if not keep:
            shutil.rmtree(self.directory, ignore_errors=True)
            shutil.rmtree(self.runtime, ignore_errors=True)


def notification(title, trigger, body="", extra=""):
    """The text of a notification file: `title`, `body` and the `extra` lines, then `trigger` (KEY=VALUE lines)."""
    text = f"[Notification]\nTitle={title}\n"
    if body:
        text += f"Body={body}\n"
    text += extra
    return text + f"\n[Trigger]\n{trigger}\n"


def requested_rebuild(instance, timeout):
    """SIGHUP → READY=1 of the rebuild that SIGHUP asked for: (SIGHUP sent, READY=1 arrived, its fields, the
    RELOADING=1 fields, overlapped).

    chimed also rebuilds on its own when the wall clock is set or the system zone changes, with the same
    RELOADING=1 and READY=1 (two such rebuilds during one run here shifted every later sample by one): a READY=1
    left over from one would otherwise be taken for the answer to the next SIGHUP. So the messages so far are skipped
    first, and the READY=1 taken is the one after the RELOADING=1 whose MONOTONIC_USEC is not before the SIGHUP.
    `overlapped` says a rebuild of chimed's own was under way when the SIGHUP came, which the SIGHUP then waited
    for: not a sample to keep."""
    instance.notify.skip()
    sent_monotonic_us = time.monotonic_ns() // 1000
    sent_ns = time.time_ns()
    os.kill(instance.proc.pid, signal.SIGHUP)
    deadline = time.monotonic() + timeout
    overlapped = False
    while True:
        _, reloading = instance.notify.wait_for("RELOADING", max(0.1, deadline - time.monotonic()), instance.proc)
        if int(reloading.get("MONOTONIC_USEC", 0)) >= sent_monotonic_us:
            break
        overlapped = True
    done_ns, fields = instance.notify.wait_for("READY", max(0.1, deadline - time.monotonic()), instance.proc)
    return sent_ns, done_ns, fields, reloading, overlapped
