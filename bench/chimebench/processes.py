"""What a harness started (processes, containers, mounts), and the ending of it all at exit, whatever happened."""

import atexit
import signal
import subprocess
import sys

# Processes this program started, by PID; each is stopped at exit, whatever happened.
STARTED = {}
# Containers this program booted; each is killed at exit, before the processes above (an orderly halt of a
# container with thousands of timers takes minutes, and nspawn stopped first would leave it running).
CONTAINERS = []
# File systems this program mounted; each is unmounted at exit, after the processes above, which may use them.
MOUNTS = []


def spawn(argv, **kwargs):
    """subprocess.Popen, the process registered in STARTED."""
    proc = subprocess.Popen(argv, **kwargs)
    STARTED[proc.pid] = proc
    return proc


def stop_process(proc, grace=5.0):
    """SIGTERM, then SIGKILL after `grace` seconds (SIGKILL at once when `grace` is None); only ever the process we
    started, by its PID."""
    if proc.poll() is None:
        try:
            if grace is None:
                proc.kill()
                proc.wait(timeout=5)
            else:
                proc.send_signal(signal.SIGTERM)
                proc.wait(timeout=grace)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=5)
        except ProcessLookupError:
            pass
    STARTED.pop(proc.pid, None)


def stop_all(grace=2.0):
    """Kills the containers, stops the processes (stop_process with `grace`), then unmounts the mounts."""
    for container in list(CONTAINERS):
        container.close()
    for proc in list(STARTED.values()):
        stop_process(proc, grace)
    for mount in list(MOUNTS):
        subprocess.run(["umount", mount], check=False)
        MOUNTS.remove(mount)


def stop_all_at_exit(grace):
    """stop_all(grace) at exit, and on SIGTERM or SIGINT, after which the program exits with 128 + its number."""

    def on_signal(number, _frame):
        stop_all(grace)
        sys.exit(128 + number)

    atexit.register(stop_all, grace)
    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)
