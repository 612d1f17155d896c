"""Delivery latency: fire time → hand-off of notifications that fire alone or ten at once, and what chimed's threads
do per wake-up."""

import os
import shutil
import time

from .instance import Instance, notification
from .processes import stop_process
from .procfs import context_switches
from .stats import percentile, spread


def latency_run(label, specs, seconds, wrapper=()):
    """Runs chimed on `specs` (name → OnCalendar=) for `seconds` after READY=1.

    Returns the (fire µs, hand-off − fire µs) of each delivery, and what chimed's threads did meanwhile: time on
    a CPU, time runnable but waiting for one, and context switches, per timer wake-up (distinct fire instant)."""
    instance = Instance(label)
    try:
        for name, spec in specs.items():
            instance.write(f"{name}.notification", notification(name, f"OnCalendar={spec}", body="latency"))
        instance.start(wrapper)
        ready_ns, _ = instance.wait_ready()
        time.sleep(0.2)
        before = instance.schedstat(), {}
        context_switches(instance.proc.pid, before[1])
        time.sleep(max(0.0, ready_ns / 1e9 + seconds - time.time()))
        after = instance.schedstat(), {}
        context_switches(instance.proc.pid, after[1])
        stop_process(instance.proc)
        rows = instance.deliveries()
    finally:
        instance.close()
    ready_us = ready_ns // 1000
    samples = [(fire, delivered - fire) for _, fire, delivered in rows if fire >= ready_us]
    wakeups = max(1, len({fire for fire, _ in samples}))
    switches = sum(count - before[1].get(tid, (None, 0))[1] for tid, (_, count) in after[1].items())
    threads = {
        "cpu_ms_per_wakeup": (after[0][0] - before[0][0]) / 1e6 / wakeups,
        "cpu_wait_ms_per_wakeup": (after[0][1] - before[0][1]) / 1e6 / wakeups,
        "context_switches_per_wakeup": switches / wakeups,
    }
    return samples, threads


def summarize_latency(run, window_seconds=10):
    """A latency_run as percentiles (of all samples, and the p99 of each `window_seconds` window with 50 or more),
    with what chimed's threads did per wake-up."""
    samples, threads = run
    values = [lag for _, lag in samples]
    if not values:
        raise RuntimeError("no deliveries")
    start = min(fire for fire, _ in samples)
    windows = {}
    for fire, lag in samples:
        windows.setdefault((fire - start) // (window_seconds * 1_000_000), []).append(lag)
    window_p99 = [percentile(w, 0.99) / 1000 for _, w in sorted(windows.items()) if len(w) >= 50]
    return dict(
        {
            "fires": len(values),
            "p50_ms": percentile(values, 0.50) / 1000,
            "p99_ms": percentile(values, 0.99) / 1000,
            "max_ms": max(values) / 1000,
            "loadavg_after": round(os.getloadavg()[0], 2),
            "over_2ms": sum(1 for v in values if v > 2000),
            "p99_per_10s_window_ms": spread(window_p99) if window_p99 else None,
        },
        **{key: round(value, 4) for key, value in threads.items()},
    )


def measure_latency(quick):
    """Fire → hand-off of 20 notifications that each fire alone and of 10 that fire together, every second; and, as a
    diagnostic, the first again under SCHED_FIFO (when chrt is there)."""
    seconds = 15 if quick else 60
    together_seconds = 10 if quick else 45
    # Staggered: 20 notifications, each every second at its own offset (0.00 s, 0.05 s, … 0.95 s), so that
    # each fire is alone and the timer is re-armed 20 times a second.
    staggered = {f"stagger-{i:02d}": f"*:*:{i * 0.05:05.2f}/1" for i in range(20)}
    # Same instant: 10 notifications every second on the whole second, so one wake-up hands off ten.
    together = {f"together-{i:02d}": "*:*:*" for i in range(10)}
    results = {
        "staggered": dict(
            summarize_latency(latency_run("latency-spread", staggered, seconds)), notifications=20, seconds=seconds
        ),
        "same_second": dict(
            summarize_latency(latency_run("latency-same", together, together_seconds)),
            notifications=10,
            seconds=together_seconds,
        ),
    }
    # Diagnostic, not the figure: the staggered run again with chimed under SCHED_FIFO, so that its threads never
    # wait behind other work for a CPU. What remains is chimed's own path from timer expiry to hand-off.
    if shutil.which("chrt"):
        fifo_seconds = 10 if quick else 20
        results["staggered_sched_fifo"] = dict(
            summarize_latency(latency_run("latency-fifo", staggered, fifo_seconds, ("chrt", "--fifo", "1"))),
            notifications=20,
            seconds=fifo_seconds,
        )
    return results
