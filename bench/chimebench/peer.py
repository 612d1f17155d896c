"""The peer at scale: N calendar times as N systemd timers in a real systemd and as N notifications in chimed,
daemon-reload against SIGHUP → READY=1, PID 1's memory against chimed's."""

import datetime
import os
import shutil
import subprocess
import sys
import time

from .container import Container
from .instance import Instance, notification, requested_rebuild
from .procfs import thread_schedstats
from .stats import spread


def peer_specs(count, now):
    """`count` distinct daily times, `*-*-* HH:MM:SS`, spread evenly over the 22 hours that start an hour from now:
    none falls due while the benchmark runs. Past 79,200 a second no longer tells them apart, so from there they
    carry microseconds."""
    start = (int(now) + 3600) % 86400 * 1_000_000
    step = 22 * 3600 * 1_000_000 // count
    for i in range(count):
        if count <= 22 * 3600:
            offset = i * 22 * 3600 // count * 1_000_000
        else:
            offset = i * step
        moment = (start + offset) % (86400 * 1_000_000)
        seconds, micro = divmod(moment, 1_000_000)
        text = f"*-*-* {seconds // 3600:02d}:{seconds // 60 % 60:02d}:{seconds % 60:02d}"
        yield text + (f".{micro:06d}" if micro else "")


def write_peer_units(container, specs, shared_service=False):
    """One `.timer` (enabled: wanted by timers.target) and its trivial oneshot `.service` per spec, written into
    the container's /etc/systemd/system from the host side. With `shared_service`, every timer starts the one
    peer.service instead (Unit=): half the units, for sizes past systemd's limit on unit names."""
    directory = container.path("/etc/systemd/system")
    wants = os.path.join(directory, "timers.target.wants")
    os.makedirs(wants, exist_ok=True)
    service = "[Service]\nType=oneshot\nExecStart=/bin/true\n"
    if shared_service:
        with open(os.path.join(directory, "peer.service"), "w") as handle:
            handle.write(f"[Unit]\nDescription=Peer\n\n{service}")
    for i, spec in enumerate(specs):
        name = f"peer-{i:06d}"
        unit = "Unit=peer.service\n" if shared_service else ""
        with open(os.path.join(directory, f"{name}.timer"), "w") as handle:
            handle.write(
                f"[Unit]\nDescription=Peer {i}\n\n[Timer]\nOnCalendar={spec}\n{unit}\n"
                "[Install]\nWantedBy=timers.target\n"
            )
        if not shared_service:
            with open(os.path.join(directory, f"{name}.service"), "w") as handle:
                handle.write(f"[Unit]\nDescription=Peer {i}\n\n{service}")
        os.symlink(f"/etc/systemd/system/{name}.timer", os.path.join(wants, f"{name}.timer"))


class SystemctlFailed(Exception):
    """A systemctl command in the container that exited non-zero, after `elapsed_ms`."""

    def __init__(self, argv, elapsed_ms, message):
        super().__init__(f"systemctl {' '.join(argv)} failed after {elapsed_ms / 1000:.1f} s: {message}")
        self.elapsed_ms = elapsed_ms


def timed(action):
    """Wall time of `action()` in ms, with its result."""
    began = time.monotonic_ns()
    result = action()
    return (time.monotonic_ns() - began) / 1e6, result


def peer_size(count, runs, budget, shared_service=False):
    """One container with `count` timers and two chimed, one with no notification and one with `count`, measured
    side by side. A systemd step that takes longer than `budget` seconds, or fails, ends systemd's part with a
    note of which step it was; chimed's part is measured all the same."""
    figures = {
        "count": count,
        "shared_service": shared_service,
        "runs": runs,
        "budget_s": budget,
        "measured_at": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "loadavg_at_start": [round(value, 2) for value in os.getloadavg()],
    }
    container = Container()
    empty = Instance("peer-empty")
    instance = Instance("peer")
    samples = {
        name: []
        for name in (
            "daemon_reload_ms",
            "pid1_cpu_ms",
            "pid1_cpu_wait_ms",
            "sighup_to_ready_ms",
            "chimed_cpu_ms",
            "chimed_cpu_wait_ms",
            "loadavg",
        )
    }

    def systemctl(*argv, timeout=budget):
        elapsed, result = timed(lambda: container.run(["systemctl", *argv], timeout=timeout, check=False))
        if result.returncode != 0:
            raise SystemctlFailed(argv, elapsed, result.stderr.strip())
        return elapsed

    def active_timers():
        listing = ["list-units", "--type=timer", "--state=active", "--no-legend", "--plain", "peer-*.timer"]
        return len(container.run(["systemctl", *listing], timeout=max(budget, 60)).stdout.splitlines())

    def give_up(step, failure):
        if isinstance(failure, subprocess.TimeoutExpired):
            figures["gave_up"] = f"{step} took more than {budget} s"
        else:
            figures["gave_up"] = f"{step}: {failure}"
        # What PID 1 said about it.
        warnings = container.run(
            ["journalctl", "--boot", "--priority=warning", "--output=cat", "--no-pager", "--lines=5", "_PID=1"],
            check=False,
        )
        figures["pid1_warnings"] = warnings.stdout.splitlines()

    def load_systemd(specs):
        """Boots the container and loads and starts the timers; whether they all run."""
        figures["boot_state"] = container.boot()
        time.sleep(1)
        # The fixed costs, before any of our units: a systemctl call that does nothing (nsenter, systemctl's own
        # start-up and one round trip on PID 1's private socket), and a daemon-reload of the container's own units.
        noop, reload = [], []
        for _ in range(3):
            noop.append(systemctl("show", "--property=Version"))
            reload.append(systemctl("daemon-reload"))
        figures["systemctl_noop_ms"] = spread(noop)
        figures["empty_daemon_reload_ms"] = spread(reload)
        figures["units_before"] = len(
            container.run(["systemctl", "list-units", "--all", "--no-legend", "--plain"]).stdout.splitlines()
        )
        time.sleep(0.5)
        figures["pid1_rss_before_kb"] = container.pid1("VmRSS")
        figures["write_units_ms"], _ = timed(lambda: write_peer_units(container, specs, shared_service))
        step = f"the first daemon-reload with {count:,} timers"
        try:
            figures["first_daemon_reload_ms"] = systemctl("daemon-reload")
            figures["pid1_rss_first_load_kb"] = container.pid1("VmRSS")
            # Starting the active target again starts what it wants and does not run yet: the new timers.
            step = f"starting {count:,} timers"
            figures["start_timers_ms"] = systemctl("start", "timers.target")
        except (subprocess.TimeoutExpired, SystemctlFailed) as failure:
            give_up(step, failure)
            return False
        active = active_timers()
        if active == count:
            return True
        warnings = container.run(["journalctl", "--boot", "--priority=warning", "--output=cat", "--no-pager"])
        if "manager has too many units" not in warnings.stdout:
            raise RuntimeError(f"peer: {active} of {count} timers active in the container")
        figures["gave_up"] = (
            f"systemd holds at most 131,072 unit names (MANAGER_MAX_NAMES): {count:,} timers with a service each "
            f"and the container's {figures['units_before']} units are more; {active:,} timers started"
        )
        return False

    def systemd_reload():
        running, waiting = container.pid1_schedstat()
        samples["daemon_reload_ms"].append(systemctl("daemon-reload"))
        after_running, after_waiting = container.pid1_schedstat()
        samples["pid1_cpu_ms"].append((after_running - running) / 1e6)
        samples["pid1_cpu_wait_ms"].append((after_waiting - waiting) / 1e6)

    def chime_rebuild():
        for _ in range(3):
            before = thread_schedstats(instance.proc.pid)
            sent_ns, done_ns, fields, _, overlapped = requested_rebuild(instance, timeout=max(30, count / 100))
            after = thread_schedstats(instance.proc.pid)
            if not overlapped:
                break
        else:
            raise RuntimeError("peer: three SIGHUPs in a row met a rebuild chimed had begun on its own")
        if not fields.get("STATUS", "").startswith(f"{count} scheduled"):
            raise RuntimeError(f"peer: chimed's status after SIGHUP is {fields.get('STATUS')!r}")
        samples["sighup_to_ready_ms"].append((done_ns - sent_ns) / 1e6)
        # A thread that ended meanwhile (libdispatch lets idle workers go) took its time with it: no CPU figure.
        if set(before) <= set(after):
            zero = (0, 0)
            samples["chimed_cpu_ms"].append(sum(after[t][0] - before.get(t, zero)[0] for t in after) / 1e6)
            samples["chimed_cpu_wait_ms"].append(sum(after[t][1] - before.get(t, zero)[1] for t in after) / 1e6)

    try:
        specs = list(peer_specs(count, time.time()))
        systemd_up = load_systemd(specs)

        empty.start()
        empty.wait_ready()
        for i, spec in enumerate(specs):
            instance.write(f"peer-{i:06d}.notification", notification(f"Peer {i}", f"OnCalendar={spec}"))
        instance.start()
        ready_ns, fields = instance.wait_ready(timeout=max(60, count / 100))
        figures["chimed_exec_to_ready_ms"] = (ready_ns - instance.exec_ns) / 1e6
        if not fields.get("STATUS", "").startswith(f"{count} scheduled"):
            raise RuntimeError(f"peer: chimed's status is {fields.get('STATUS')!r}")
        time.sleep(1)
        figures["chimed_empty_rss_kb"] = empty.status("VmRSS")
        figures["chimed_rss_loaded_kb"] = instance.status("VmRSS")
        figures["chimed_kb_per_notification"] = round(
            (figures["chimed_rss_loaded_kb"] - figures["chimed_empty_rss_kb"]) / count, 3
        )
        if systemd_up:
            figures["pid1_rss_loaded_kb"] = container.pid1("VmRSS")
            figures["pid1_kb_per_timer"] = round(
                (figures["pid1_rss_loaded_kb"] - figures["pid1_rss_before_kb"]) / count, 3
            )

        # Interleaved, in alternating order, so that both see the same load on the shared cores.
        for run in range(runs):
            samples["loadavg"].append(os.getloadavg()[0])
            for action in (systemd_reload, chime_rebuild) if run % 2 == 0 else (chime_rebuild, systemd_reload):
                if action is systemd_reload and not systemd_up:
                    continue
                time.sleep(0.5)
                try:
                    action()
                except (subprocess.TimeoutExpired, SystemctlFailed) as failure:
                    give_up(f"daemon-reload with {count:,} timers active", failure)
                    systemd_up = False
        figures.update({name: spread(values) for name, values in samples.items() if values})
        figures["chimed_rss_after_kb"] = instance.status("VmRSS")
        figures["chimed_hwm_after_kb"] = instance.status("VmHWM")
        if systemd_up:
            if active_timers() != count:
                raise RuntimeError(f"peer: {active_timers()} of {count} timers active after the reloads")
            figures["reload_ratio"] = round(
                figures["daemon_reload_ms"]["median"] / figures["sighup_to_ready_ms"]["median"], 1
            )
            figures["pid1_rss_after_kb"] = container.pid1("VmRSS")
            figures["pid1_hwm_after_kb"] = container.pid1("VmHWM")
    finally:
        figures["teardown_s"] = {
            "chimed": round(timed(instance.close)[0] / 1000 + timed(empty.close)[0] / 1000, 2),
            "container": round(timed(container.close)[0] / 1000, 2),
        }
    return figures


def measure_peer(quick, sizes=None, runs=5, budget=120, shared_service=False):
    """The same `N` daily calendar times as N systemd timers in a real systemd and as N chimed notifications:
    daemon-reload against SIGHUP → READY=1, PID 1's RSS against chimed's."""
    if not shutil.which("systemd-nspawn"):
        raise RuntimeError("systemd-nspawn is missing (apt-get install systemd-container)")
    if quick:
        runs = 2
    sizes = sizes or ((200,) if quick else (1_000, 10_000))
    Container.reap_leftovers()
    version = subprocess.run(["systemctl", "--version"], capture_output=True, text=True).stdout.split("\n")[0]
    results = {"systemd": version, "runs": runs, "budget_s": budget, "sizes": {}}
    for count in sizes:
        print(f"[peer] N = {count:,}…", file=sys.stderr, flush=True)
        key = f"{count} timers sharing one service" if shared_service else str(count)
        results["sizes"][key] = peer_size(count, runs, budget, shared_service)
    return results
