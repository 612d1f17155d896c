"""Start-up and rebuild at 10,000 notification files: exec → READY=1, SIGHUP → READY=1, CPU and peak memory."""

import os
import random
import time

from .instance import Instance, notification, requested_rebuild
from .stats import spread
from .timestamps import utc_text


def write_large_configuration(instance, count, seed=1):
    """`count` notification files of the kinds people write: weekday times, one-shots, intervals, zoned dates.
    None falls due within the next hour, so the run measures loading, not delivering."""
    rng = random.Random(seed)
    now = time.time()
    zones = ["Europe/Berlin", "America/New_York", "Asia/Tokyo", "Australia/Sydney"]
    for i in range(count):
        kind = i % 4
        body = f"Reminder {i}: " + rng.choice(["stand-up", "exam", "backup", "medication", "call"])
        extra = f"Info=kind=bench\nInfo=n={i}\n"
        if kind == 0:
            moment = time.gmtime(now + rng.randrange(3600, 23 * 3600))
            trigger = f"OnCalendar=Mon..Fri *-*-* {moment.tm_hour:02d}:{moment.tm_min:02d}:00"
        elif kind == 1:
            trigger = f"At={utc_text(int(now) + rng.randrange(2 * 3600, 30 * 86400))}"
        elif kind == 2:
            trigger = f"Every={rng.choice(['2h', '6h', '1d', '90min', '3h 30min'])}"
        else:
            hour, minute = rng.randrange(24), rng.randrange(60)
            trigger = f"OnCalendar=*-*-01/7 {hour:02d}:{minute:02d}\nTimeZone={rng.choice(zones)}"
        instance.write(f"bench-{i:05d}.notification", notification(f"Bench {i}", trigger, body=body, extra=extra))


def measure_startup(quick, count=10_000):
    """`count` notification files: exec → READY=1 over 5 starts (3 with `quick`), each followed by 3 (2) SIGHUP →
    READY=1 rebuilds; chimed's time on a CPU and waiting for one, and its peak RSS."""
    starts = 3 if quick else 5
    hups = 2 if quick else 3
    figures = {
        name: []
        for name in (
            "exec_to_ready_ms",
            "start_cpu_ms",
            "start_cpu_wait_ms",
            "sighup_to_ready_ms",
            "reloading_to_ready_ms",
            "rebuild_cpu_ms",
            "rebuild_cpu_wait_ms",
            "vmhwm_after_start_kb",
            "vmhwm_after_rebuilds_kb",
        )
    }
    template = Instance("startup")
    try:
        write_large_configuration(template, count)
        for _ in range(starts):
            instance = Instance("startup")
            os.rmdir(instance.config)
            os.symlink(template.config, instance.config)
            try:
                instance.start()
                ready_ns, fields = instance.wait_ready()
                running, waiting = instance.schedstat()
                figures["exec_to_ready_ms"].append((ready_ns - instance.exec_ns) / 1e6)
                figures["start_cpu_ms"].append(running / 1e6)
                figures["start_cpu_wait_ms"].append(waiting / 1e6)
                figures["vmhwm_after_start_kb"].append(instance.status("VmHWM"))
                if not fields.get("STATUS", "").startswith(f"{count} scheduled"):
                    raise RuntimeError(f"start-up: unexpected status {fields.get('STATUS')!r}")
                for _ in range(hups):
                    time.sleep(0.5)  # the snapshot queue and the allocator settle between rebuilds
                    for _ in range(3):
                        running, waiting = instance.schedstat()
                        sent_ns, done_ns, _, reloading, overlapped = requested_rebuild(instance, 30)
                        after_running, after_waiting = instance.schedstat()
                        if not overlapped:
                            break
                    else:
                        raise RuntimeError("start-up: three SIGHUPs in a row met a rebuild chimed had begun on its own")
                    figures["sighup_to_ready_ms"].append((done_ns - sent_ns) / 1e6)
                    figures["rebuild_cpu_ms"].append((after_running - running) / 1e6)
                    figures["rebuild_cpu_wait_ms"].append((after_waiting - waiting) / 1e6)
                    # MONOTONIC_USEC is when chimed began the rebuild; READY=1's arrival put on the same clock.
                    began_us = int(reloading["MONOTONIC_USEC"])
                    ready_monotonic_us = (time.monotonic_ns() - (time.time_ns() - done_ns)) // 1000
                    figures["reloading_to_ready_ms"].append((ready_monotonic_us - began_us) / 1000)
                figures["vmhwm_after_rebuilds_kb"].append(instance.status("VmHWM"))
            finally:
                instance.close()
    finally:
        template.close()
    return dict({name: spread(values) for name, values in figures.items()}, notifications=count)
