"""Where things are, and the targets the figures are judged against.

CHIMED is the chimed measured; bench/daemon --chimed=PATH replaces it, so it is read as settings.CHIMED when used."""

import os

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CHIMED = os.path.join(ROOT, ".build", "release", "chimed")
CHIME_BENCH = os.path.join(ROOT, ".build", "release", "chime-bench")
RESULTS = os.path.join(ROOT, "bench", "results", "daemon-latest.json")
SCALE_SVG = os.path.join(ROOT, "bench", "results", "scale-latest.svg")
CALENDAR_RESULTS = os.path.join(ROOT, "bench", "results", "calendar-latest.json")
# Where each chimed's runtime directory goes (Instance): tmpfs when there is one.
RUNTIME_BASE = "/dev/shm" if os.path.isdir("/dev/shm") else None

TARGETS = {
    "latency_p99_ms": 2.0,
    "burst_last_handoff_ms": 500.0,
    "idle_switches_per_hour": 0.0,
    "startup_ready_ms": 200.0,
    "rebuild_ready_ms": 200.0,
    "peer_reload_ratio": 10.0,
    "interface_burst_ms": 2000.0,
    "interface_ratio": 10.0,
    "interface_round_trip_p99_ms": 2.0,
    "sound_audible_p99_ms": 150.0,
    "sound_idle_memory_mib": 5.0,
}
