"""A throw-away systemd-nspawn container with a real systemd as its PID 1, and the cgroups that keep it apart."""

import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time

from .processes import CONTAINERS, STARTED, spawn
from .procfs import alive, read_all


def cgroup_roots():
    """Where nspawn's own cgroups go: the unified hierarchy on a cgroup2 host, else (hybrid, as here) the named
    "systemd" v1 hierarchy and the unified one. nspawn runs with --keep-unit, in the cgroup it is started in."""
    with open("/proc/self/mounts") as handle:
        mounts = {fields[1]: fields[2] for fields in (line.split() for line in handle)}
    if mounts.get("/sys/fs/cgroup") == "cgroup2":
        return ["/sys/fs/cgroup"]
    hybrid = (("/sys/fs/cgroup/systemd", "cgroup"), ("/sys/fs/cgroup/unified", "cgroup2"))
    return [root for root, kind in hybrid if mounts.get(root) == kind]


def reap_cgroup(directory, deadline=5.0):
    """Kills whatever is left in a cgroup tree of ours, then removes the tree bottom-up."""
    kill = os.path.join(directory, "cgroup.kill")
    if os.path.exists(kill):
        try:
            with open(kill, "w") as handle:
                handle.write("1")
        except OSError:
            pass
    for path, _, _ in os.walk(directory):
        try:
            with open(os.path.join(path, "cgroup.procs")) as handle:
                for pid in handle.read().split():
                    try:
                        os.kill(int(pid), signal.SIGKILL)
                    except ProcessLookupError:
                        pass
        except OSError:
            pass
    stop = time.monotonic() + deadline
    while os.path.isdir(directory) and time.monotonic() < stop:
        for path, _, _ in sorted(os.walk(directory), key=lambda entry: -entry[0].count("/")):
            try:
                os.rmdir(path)
            except OSError:
                pass
        if os.path.isdir(directory):
            time.sleep(0.1)
    return not os.path.isdir(directory)


class Container:
    """A real systemd 252 as PID 1 of a throw-away systemd-nspawn container that boots the host's own /usr with
    --volatile=yes (an empty tmpfs root: nothing is downloaded, nothing written to the host).

    As in Tests/E2E/systemd-e2e: a private mount namespace with a tmpfs on /run/systemd keeps nspawn's bookkeeping
    out of the host's /run, and cgroups named after this script's PID keep the container out of the host's root
    cgroup, so that whatever survives can be found and killed. The host's PID 1 need not be systemd."""

    PREFIX = "chime-bench-peer"

    def __init__(self):
        self.cgroups = [f"{root}/{self.PREFIX}.{os.getpid()}" for root in cgroup_roots()]
        self.directory = tempfile.mkdtemp(prefix=f"{self.PREFIX}.{os.getpid()}.")
        self.proc = None
        self.leader = None
        CONTAINERS.append(self)

    @classmethod
    def reap_leftovers(cls):
        """The cgroups (with whatever still runs in them) and the work directory of an earlier run that was
        SIGKILLed, so that it could not clean up: all named after its PID."""
        places = [(root, entry) for root in cgroup_roots() for entry in os.listdir(root)]
        places += [(tempfile.gettempdir(), entry) for entry in os.listdir(tempfile.gettempdir())]
        for directory, entry in places:
            owner = entry[len(cls.PREFIX) + 1 :].partition(".")[0]
            if entry.startswith(cls.PREFIX + ".") and owner.isdigit() and not alive(int(owner)):
                path = os.path.join(directory, entry)
                print(f"[peer] removing the leftovers of an earlier run: {path}", file=sys.stderr)
                if directory == tempfile.gettempdir():
                    shutil.rmtree(path, ignore_errors=True)
                elif not reap_cgroup(path):
                    print(f"[peer] could not remove {path}", file=sys.stderr)

    def boot(self, timeout=60):
        script = (
            'for dir in $1; do mkdir -p "$dir" && echo $$ >"$dir/cgroup.procs" || exit 1; done; '
            "mount -t tmpfs -o mode=0755 tmpfs /run/systemd || exit 1; "
            'exec systemd-nspawn --quiet --directory=/ --volatile=yes --boot --machine="$2" '
            "--register=no --keep-unit --private-network --console=read-only --link-journal=no "
            "-- systemd.firstboot=no"
        )
        # --console=read-only, not passive: with many units PID 1 would block writing to an unread console.
        with open(os.path.join(self.directory, "console.log"), "wb") as console:
            self.proc = spawn(
                ["unshare", "--mount", "--propagation", "private", "--", "sh", "-c", script, "sh",
                 " ".join(self.cgroups), f"{self.PREFIX}-{os.getpid()}"],
                stdin=subprocess.DEVNULL,
                stdout=console,
                stderr=subprocess.STDOUT,
            )
        deadline = time.monotonic() + timeout
        # The container's PID 1: the child of nspawn whose PID in its own namespace is 1.
        while self.leader is None:
            if time.monotonic() > deadline or self.proc.poll() is not None:
                raise RuntimeError(f"systemd-nspawn did not start a container: {self.console_tail()}")
            for children in read_all(f"/proc/{self.proc.pid}/task/*/children"):
                for child in children.split():
                    if self._nspid(child)[2:] == ["1"]:
                        self.leader = int(child)
            time.sleep(0.05)
        state = ""
        while state not in ("running", "degraded"):
            if time.monotonic() > deadline:
                raise RuntimeError(f"container not up within {timeout} s (is-system-running: {state!r})")
            time.sleep(0.1)
            state = self.run(["systemctl", "is-system-running"], check=False).stdout.strip()
        return state

    @staticmethod
    def _nspid(pid):
        """The "NSpid:" line of a process's status, split: its PID in each namespace it is in, outermost first."""
        try:
            with open(f"/proc/{pid}/status") as handle:
                return next((line.split() for line in handle if line.startswith("NSpid:")), [])
        except OSError:
            return []

    def console_tail(self):
        with open(os.path.join(self.directory, "console.log"), "rb") as handle:
            return handle.read()[-2000:].decode(errors="replace")

    def run(self, argv, timeout=30, check=True):
        """Runs a command inside the container (the container's binaries, i.e. the host's /usr)."""
        result = subprocess.run(
            ["nsenter", f"--target={self.leader}", "--all", *argv],
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=timeout,
        )
        if check and result.returncode != 0:
            raise RuntimeError(f"{' '.join(argv)} in the container: status {result.returncode}: {result.stderr}")
        return result

    def path(self, inside):
        """A path of the container's file system, as the host reaches it."""
        return f"/proc/{self.leader}/root{inside}"

    def pid1(self, key):
        """A field of PID 1's /proc/PID/status, in kB (VmRSS, VmHWM)."""
        with open(f"/proc/{self.leader}/status") as handle:
            for line in handle:
                if line.startswith(key + ":"):
                    return int(line.split()[1])
        return None

    def pid1_schedstat(self):
        """(ns on a CPU, ns waiting for a CPU) of PID 1, summed over its threads."""
        running = waiting = 0
        for text in read_all(f"/proc/{self.leader}/task/*/schedstat"):
            fields = text.split()
            running += int(fields[0])
            waiting += int(fields[1])
        return running, waiting

    def close(self):
        """Stops the container and everything in it, without an orderly halt: stopping 10,000 timers one by one
        takes PID 1 minutes. SIGKILL to the container's PID 1 ends every process of its PID namespace; nspawn,
        whose child that was, then exits. Last, whatever is left in our cgroups is killed and they are removed."""
        if self.leader is not None and alive(self.leader) and self._nspid(self.leader)[2:] == ["1"]:
            os.kill(self.leader, signal.SIGKILL)
        if self.proc is not None:
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=5)
            STARTED.pop(self.proc.pid, None)
        for cgroup in self.cgroups:
            if os.path.isdir(cgroup) and not reap_cgroup(cgroup):
                print(f"[peer] could not remove {cgroup}", file=sys.stderr)
        if self.leader is not None and alive(self.leader):
            print(f"[peer] container PID 1 ({self.leader}) still running", file=sys.stderr)
        shutil.rmtree(self.directory, ignore_errors=True)
        self.proc = self.leader = None
        if self in CONTAINERS:
            CONTAINERS.remove(self)
