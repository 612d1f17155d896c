"""The cost of computing a next fire: chime-bench nextfire's ns per call, per kind of trigger, beside
systemd-analyze calendar's time per elapse from bench/run."""

import json
import os
import subprocess

from . import settings

# The rows of bench/run's calendar suite that time systemd-analyze on the same calendar event (or, for TimeZone=,
# the same wall time read in the same zone through TZ=): its wall time per listed elapse is the peer's figure.
NEXTFIRE_PEERS = {
    "OnCalendar= simple": ("Mon..Fri 09:55", "TZ=UTC"),
    "OnCalendar= ranged": ("Mon..Fri 08..18:00/30", "TZ=UTC"),
    "OnCalendar= repeated": ("*:0/15", "TZ=UTC"),
    "OnCalendar= zoned (in the spec)": ("*-*-* 02:30 Europe/Berlin", "TZ=UTC"),
    "OnCalendar= zoned (TimeZone=)": ("*-*-* 02:30", "TZ=Europe/Berlin"),
}


def calendar_peers():
    """systemd-analyze calendar's wall time per elapse (ns) from bench/run's latest figures, by the spec and TZ."""
    try:
        with open(settings.CALENDAR_RESULTS) as handle:
            document = json.load(handle)
    except (FileNotFoundError, json.JSONDecodeError):
        return {}, None
    peers = {}
    for row in document.get("suites", {}).get("calendar", {}).get("rows", []):
        if row.get("elapses"):
            peers[(row["spec"], row["environment"])] = {
                "systemd_ns_per_elapse": round(row["systemd"]["wall_median_s"] * 1e9 / row["elapses"], 1),
                "chimectl_ns_per_elapse": round(row["chime"]["wall_median_s"] * 1e9 / row["elapses"], 1),
                "elapses": row["elapses"],
            }
    return peers, document.get("date")


def measure_nextfire(quick):
    """chime-bench nextfire: ns per Trigger.nextOccurrence call, per kind of trigger, beside the peer's time per
    elapse from bench/run."""
    if not os.access(settings.CHIME_BENCH, os.X_OK):
        raise RuntimeError(f"no {settings.CHIME_BENCH}: swift build -c release --product chime-bench")
    argv = [settings.CHIME_BENCH, "nextfire", "--json", *(["--quick"] if quick else [])]
    result = subprocess.run(argv, capture_output=True, text=True, timeout=600)
    if result.returncode != 0:
        raise RuntimeError(f"chime-bench: status {result.returncode}: {result.stderr}")
    figures = json.loads(result.stdout)
    peers, measured = calendar_peers()
    for row in figures["cases"]:
        key = NEXTFIRE_PEERS.get(row["kind"])
        if key and key in peers:
            row["peer"] = dict(peers[key], spec=key[0], environment=key[1], source="bench/run", measured_at=measured)
    return figures
