"""The application interface against its peer: one application's Adds to org.chime.Notifications1 (chimed --user
started by D-Bus activation on a private session bus) beside the same one-shots made as transient timers with
"systemd-run --user --on-active=" against a real systemd user manager in a container."""

import json
import os
import shutil
import subprocess
import tempfile
import textwrap
import time

from . import settings
from .container import Container
from .processes import spawn, stop_process
from .stats import percentile

# Run inside the container as the user: the transient timers one after the other, each call timed as an
# application pays for it (a process and a round trip to the user manager); stops at the budget.
TRANSIENT_SCRIPT = textwrap.dedent(
    """\
    import json, subprocess, sys, time
    count, budget = int(sys.argv[1]), float(sys.argv[2])
    start = time.monotonic()
    calls = []
    for index in range(count):
        if time.monotonic() - start > budget:
            break
        before = time.monotonic()
        subprocess.run(["systemd-run", "--user", "--quiet", "--on-active=1d", f"--unit=bench-{index}", "/bin/true"],
                       check=True)
        calls.append((time.monotonic() - before) * 1e6)
    total = time.monotonic() - start
    timers = len(subprocess.run(["systemctl", "--user", "list-timers", "--all", "--no-legend", "bench-*.timer"],
                                capture_output=True, text=True, check=True).stdout.strip().splitlines())
    print(json.dumps({"calls_us": calls, "total_ms": total * 1000, "timers": timers}))
    """
)


def summary_us(values):
    return {
        "count": len(values),
        "p50_us": round(percentile(values, 0.50), 1),
        "p99_us": round(percentile(values, 0.99), 1),
        "max_us": round(max(values), 1),
    }


def chime_side(count, round_trips):
    """chime-bench interface against chimed --user, bus-activated on a private session bus, all on tmpfs."""
    if not os.access(settings.CHIME_BENCH, os.X_OK):
        raise RuntimeError(f"no {settings.CHIME_BENCH}: swift build -c release --product chime-bench")
    directory = tempfile.mkdtemp(prefix="chime-bench-interface.", dir=settings.RUNTIME_BASE)
    bus = None
    try:
        os.makedirs(f"{directory}/config")
        os.makedirs(f"{directory}/services")
        with open(f"{directory}/config/chimed.conf", "w") as handle:
            handle.write(
                f"[Daemon]\nDeliver=journal\nMaxRequestsPerApp={count + 2 * round_trips + 10}\n"
                f"MaxRequests={count + 2 * round_trips + 10}\nMaxRequestBytes=1G\n"
            )
        with open(f"{directory}/services/org.chime.Notifications1.service", "w") as handle:
            handle.write(
                "[D-BUS Service]\nName=org.chime.Notifications1\n"
                f"Exec={settings.CHIMED} --user --config-dir={directory}/config --state-dir={directory}/state "
                f"--runtime-dir={directory}/run\n"
            )
        with open(f"{directory}/bus.conf", "w") as handle:
            handle.write(
                '<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"\n'
                ' "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">\n'
                f"<busconfig><type>session</type><listen>unix:path={directory}/bus</listen>"
                f"<auth>EXTERNAL</auth><servicedir>{directory}/services</servicedir>"
                '<policy context="default"><allow send_destination="*" eavesdrop="true"/><allow eavesdrop="true"/>'
                '<allow own="*"/></policy></busconfig>\n'
            )
        bus = spawn(
            ["dbus-daemon", f"--config-file={directory}/bus.conf", "--nofork", "--print-address"],
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
        )
        address = bus.stdout.readline().strip()
        if not address:
            raise RuntimeError("dbus-daemon printed no address")
        result = subprocess.run(
            [settings.CHIME_BENCH, "interface", f"--address={address}", f"--burst={count}",
             f"--round-trips={round_trips}"],
            capture_output=True,
            text=True,
            timeout=1800,
        )
        if result.returncode != 0:
            raise RuntimeError(f"chime-bench interface: status {result.returncode}: {result.stderr}")
        figures = json.loads(result.stdout)
        return {
            "round_trip": summary_us(figures["round_trips_us"]),
            "round_trip_loaded": dict(
                summary_us(figures["round_trips_loaded_us"]), pending=figures["pending_while_loaded"]
            ),
            "burst": {key: round(value, 1) if isinstance(value, float) else value
                      for key, value in figures["burst"].items()},
        }
    finally:
        try:
            with open(f"{directory}/run/chimed.pid") as handle:
                os.kill(int(handle.read().strip()), 15)
            time.sleep(0.5)
        except (OSError, ValueError):
            pass
        if bus is not None:
            stop_process(bus)
        shutil.rmtree(directory, ignore_errors=True)


def systemd_side(count, budget):
    """The same one-shots as transient timers of a systemd user manager in a container."""
    Container.reap_leftovers()
    container = Container()
    try:
        container.boot()
        container.run(["sh", "-c", 'echo "u bench 1000 - /home/bench /bin/sh" | systemd-sysusers -'])
        container.run(["install", "-d", "-o", "1000", "-g", "1000", "-m", "0700", "/home/bench", "/run/user/1000"])
        container.run(
            ["systemd-run", "--quiet", "--unit=bench-user-manager", "--uid=1000", "--gid=1000",
             "--property=Type=notify", "--property=Delegate=yes", "--setenv=XDG_RUNTIME_DIR=/run/user/1000",
             "--setenv=HOME=/home/bench", "/usr/lib/systemd/systemd", "--user"],
            timeout=60,
        )
        with open(container.path("/tmp/transient.py"), "w") as handle:
            handle.write(TRANSIENT_SCRIPT)
        result = container.run(
            ["setpriv", "--reuid=1000", "--regid=1000", "--clear-groups", "env", "XDG_RUNTIME_DIR=/run/user/1000",
             "HOME=/home/bench", "python3", "/tmp/transient.py", str(count), str(budget)],
            timeout=budget + 120,
        )
        figures = json.loads(result.stdout)
        return {
            "call": summary_us(figures["calls_us"]),
            "made": len(figures["calls_us"]),
            "total_ms": round(figures["total_ms"], 1),
            "timers_listed": figures["timers"],
            "budget_s": budget,
        }
    finally:
        container.close()


def measure_interface(quick, count=10_000, round_trips=200, budget=600):
    """Add round trips and a burst of COUNT Adds, beside COUNT transient timers made with systemd-run."""
    if quick:
        count, round_trips, budget = 500, 50, 60
    chime = chime_side(count, round_trips)
    systemd = systemd_side(count, budget)
    made = systemd["made"]
    # Per one-shot, when systemd-run could not make them all within the budget.
    systemd_ms_for_count = systemd["total_ms"] * count / made if made else None
    return {
        "count": count,
        "chime": chime,
        "systemd_run": systemd,
        "ratio": round(systemd_ms_for_count / chime["burst"]["listed_ms"], 1) if systemd_ms_for_count else None,
    }
