"""Start-up, rebuild and memory at scale: 10,000 to 1,000,000 notifications from a generator (and the smallest
size as files), with growth exponents."""

import contextlib
import datetime
import json
import os
import random
import shutil
import sys
import tempfile
import time
import zoneinfo

from . import settings
from .instance import Instance, requested_rebuild
from .procfs import process_cpu_ms
from .stats import growth_exponent, n_log_n_exponent, spread
from .timestamps import utc_text

SCALE_SIZES = (10_000, 100_000, 1_000_000)
# Nothing of the mix falls due within this long after it is written, so that the runs measure loading, not
# delivering (a million daily notifications would otherwise fire some twelve a second).
SCALE_CLEAR_S = 3 * 3600
SCALE_ZONES = ["Europe/Berlin", "America/New_York", "Asia/Tokyo", "Australia/Sydney"]
# The wide mix's zones for daily times: the four above and four more, with and without DST, on both hemispheres.
SCALE_WIDE_ZONES = SCALE_ZONES + ["Europe/London", "America/Los_Angeles", "Asia/Kolkata", "America/Sao_Paulo"]
SCALE_MIXES = ("wide", "narrow")
SCALE_BODIES = ["stand-up", "exam", "backup", "medication", "call", "water the plants", "renew the certificate"]
SCALE_CONF = "[Daemon]\nGeneratorMaxOutput=512M\nGeneratorTimeoutSec=300s\n"


def scale_mix(count, now, seed=6, mix="wide"):
    """`count` notifications as generator objects (the keys of a file, plus Id), in a fixed mix:

    - 70% `OnCalendar=*-*-* HH:MM:SS`, the time of day drawn from the 86,400 seconds of the day, in the system zone
      (UTC here; this script's local zone, which chimed inherits); one in 20 of them with `Until=` a year ahead;
    - 10% `OnCalendar=Mon..Fri HH:MM` with `TimeZone=` one of four zones (three with DST, one of them in the
      southern hemisphere, and one without);
    - 10% one-shots: one to three `At=` instants over the coming year, to the second, in UTC;
    - 10% `Every=` (3h, 6h, 12h, 1d, 2d or 1w): half anchored at their first sighting, half with `From=` in the
      coming week, a third of those with `Count=` (5 to 100).

    The wide mix (the default), as a generator of reminders prints them: as above, and besides, 15 of the 70 points
    of daily times name their own `TimeZone=` among eight zones (with the weekday ones, a quarter of all name one),
    and a fifth of all the repeating ones (daily, weekday and `Every=`) have `Count=` (5 to 100) unless they have
    one already. The narrow mix is the one of the figures before 2026-12-07.

    None falls due within SCALE_CLEAR_S of `now`: a time of day or an instant that would is drawn again."""
    wide = mix == "wide"
    rng = random.Random(seed)
    zones = {name: zoneinfo.ZoneInfo(name) for name in SCALE_ZONES}
    utc = datetime.timezone.utc
    today = datetime.datetime.fromtimestamp(now, utc).date()
    local = time.localtime(now)
    now_second_of_day = local.tm_hour * 3600 + local.tm_min * 60 + local.tm_sec

    def clear(epoch):
        return not now <= epoch <= now + SCALE_CLEAR_S

    def clear_around_today(wall, zone):
        """Whether the wall time `wall` in `zone` is clear on each of the days around today."""
        return all(
            clear(datetime.datetime.combine(today + datetime.timedelta(days=d), wall).replace(tzinfo=zone).timestamp())
            for d in (-1, 0, 1, 2)
        )

    for i in range(count):
        item = {
            "Id": f"scale-{i:07d}",
            "Title": f"Reminder {i}",
            "Body": rng.choice(SCALE_BODIES),
            "Info": ["kind=bench", f"n={i}"],
        }
        draw = rng.random()
        if wide and draw < 0.15:
            name = rng.choice(SCALE_WIDE_ZONES)
            zone = zones.setdefault(name, zoneinfo.ZoneInfo(name))
            while True:
                second = rng.randrange(86400)
                wall = datetime.time(second // 3600, second // 60 % 60, second % 60)
                if clear_around_today(wall, zone):
                    break
            item["OnCalendar"] = f"*-*-* {wall.strftime('%H:%M:%S')}"
            item["TimeZone"] = name
        elif draw < 0.70:
            while True:
                second = rng.randrange(86400)
                if (second - now_second_of_day) % 86400 > SCALE_CLEAR_S:
                    break
            item["OnCalendar"] = f"*-*-* {second // 3600:02d}:{second // 60 % 60:02d}:{second % 60:02d}"
            if rng.random() < 0.05:
                item["Until"] = utc_text(now + 365 * 86400)
        elif draw < 0.80:
            name = rng.choice(SCALE_ZONES)
            while True:
                hour, minute = rng.randrange(24), rng.randrange(60)
                if clear_around_today(datetime.time(hour, minute), zones[name]):
                    break
            item["OnCalendar"] = f"Mon..Fri {hour:02d}:{minute:02d}"
            item["TimeZone"] = name
        elif draw < 0.90:
            instants = []
            for _ in range(rng.randint(1, 3)):
                instants.append(utc_text(now + SCALE_CLEAR_S + rng.randrange(365 * 86400)))
            item["At"] = instants if len(instants) > 1 else instants[0]
        else:
            item["Every"] = rng.choice(["3h", "6h", "12h", "1d", "2d", "1w"])
            if rng.random() < 0.5:
                item["From"] = utc_text(now + SCALE_CLEAR_S + rng.randrange(7 * 86400))
                if rng.random() < 1 / 3:
                    item["Count"] = rng.randint(5, 100)
        # A fifth of all: 2/9 of the 90% that repeat.
        if wide and "At" not in item and "Count" not in item and rng.random() < 2 / 9:
            item["Count"] = rng.randint(5, 100)
        yield item


def scale_notification_file(item):
    """A generator object as the text of a notification file with the same keys."""
    lines = ["[Notification]", f"Title={item['Title']}", f"Body={item['Body']}"]
    lines += [f"Info={info}" for info in item["Info"]]
    lines += ["", "[Trigger]"]
    for key in ("OnCalendar", "At", "Every", "From", "Count", "Until", "TimeZone"):
        if key in item:
            values = item[key] if isinstance(item[key], list) else [item[key]]
            lines += [f"{key}={value}" for value in values]
    return "\n".join(lines) + "\n"


def write_scale_configuration(directory, count, form, now, mix):
    """A configuration directory with chimed.conf and `count` notifications, from a generator that `exec cat`s a
    prepared JSON-lines file (form "generator") or as notification files (form "files"). Returns its path and the
    size of what the generator prints."""
    config = os.path.join(directory, "config")
    os.makedirs(config)
    with open(os.path.join(config, "chimed.conf"), "w") as handle:
        handle.write(SCALE_CONF)
    if form == "empty":
        return config, 0
    if form == "files":
        for item in scale_mix(count, now, mix=mix):
            with open(os.path.join(config, item["Id"] + ".notification"), "w") as handle:
                handle.write(scale_notification_file(item))
        return config, 0
    lines = os.path.join(directory, "notifications.jsonl")
    with open(lines, "w") as handle, open(edited_lines(lines), "w") as edited:
        for item in scale_mix(count, now, mix=mix):
            handle.write(json.dumps(item, separators=(",", ":")) + "\n")
            # Of the same length, so that the notifications take the same memory as before.
            item["Title"] = item["Title"].replace("Reminder", "Reminded")
            edited.write(json.dumps(item, separators=(",", ":")) + "\n")
    os.makedirs(os.path.join(config, "generators.d"))
    generator = os.path.join(config, "generators.d", "scale")
    with open(generator, "w") as handle:
        handle.write(f"#!/bin/sh\nexec cat '{lines}'\n")
    os.chmod(generator, 0o755)
    return config, os.path.getsize(lines)


def settled_rss(instance, since_ns, timeout):
    """VmRSS (kB) once chimed has written the snapshot that follows the READY=1 at `since_ns` and the resident size
    has stopped moving (two readings half a second apart within 0.5%): chimed gives freed memory back
    (malloc_trim) on its snapshot queue, after that snapshot. Returns (kB, seconds waited)."""
    began = time.monotonic()
    deadline = began + timeout
    snapshot = os.path.join(instance.runtime, "schedule.json")
    while time.monotonic() < deadline:
        try:
            # tmpfs stamps files with the kernel's coarse clock (a tick, up to 4 ms, behind): a snapshot written
            # just after the READY=1 may carry an earlier time. The one before it is from the last settle, seconds ago.
            if os.stat(snapshot).st_mtime_ns >= since_ns - 20_000_000:
                break
        except FileNotFoundError:
            pass
        time.sleep(0.05)
    previous = instance.status("VmRSS")
    while True:
        time.sleep(0.5)
        current = instance.status("VmRSS")
        if abs(current - previous) <= 0.005 * previous or time.monotonic() >= deadline:
            return current, round(time.monotonic() - began, 2)
        previous = current


def edited_lines(path):
    """The lines file with every notification's Title edited, written beside `path`."""
    return path.replace(".jsonl", "-edited.jsonl")


@contextlib.contextmanager
def generator_printing(config, program, edited=False):
    """The scale generator runs `program` (cat or tac) on its lines file, or on the edited one, while the block
    runs."""
    path = os.path.join(config, "generators.d", "scale")
    with open(path) as handle:
        original = handle.read()
    changed = original.replace("exec cat ", f"exec {program} ", 1)
    if edited:
        changed = changed.replace(".jsonl'", "-edited.jsonl'", 1)
    with open(path, "w") as handle:
        handle.write(changed)
    try:
        yield
    finally:
        with open(path, "w") as handle:
            handle.write(original)


def changed_rebuild(instance, config, count, timeout, sample, label, program, edited=False):
    """One rebuild with the generator running `program` on its lines (or the edited lines): its time, CPU, peak and
    the steady RSS after it, as `{label}_…` in `sample`."""
    with generator_printing(config, program, edited=edited):
        instance.reset_peak()
        cpu = process_cpu_ms(instance.proc.pid)
        sent_ns, done_ns, fields, _, _ = requested_rebuild(instance, timeout)
        sample[f"{label}_rebuild_cpu_ms"] = process_cpu_ms(instance.proc.pid) - cpu
        sample[f"{label}_sighup_to_ready_ms"] = (done_ns - sent_ns) / 1e6
        sample[f"vmhwm_{label}_kb"] = instance.status("VmHWM")
        sample[f"rss_{label}_kb"], _ = settled_rss(instance, done_ns, timeout)
    if not fields.get("STATUS", "").startswith(f"{count} scheduled"):
        raise RuntimeError(f"scale: after the {label} output chimed's status is {fields.get('STATUS')!r}")


def scale_run(config, count, rebuilds, timeout, generator_changes=False):
    """One chimed on `config`: exec → READY=1, then `rebuilds` SIGHUPs, and with `generator_changes` one more after
    the generator's output changed; times, CPU and memory."""
    sample = {"loadavg_1min": [round(os.getloadavg()[0], 2)], "sighup_to_ready_ms": [], "rebuild_cpu_ms": []}
    sample.update(rebuild_cpu_wait_ms=[], rss_after_each_rebuild_kb=[])
    instance = Instance("scale")
    os.rmdir(instance.config)
    os.symlink(config, instance.config)
    try:
        instance.start()
        ready_ns, fields = instance.wait_ready(timeout=timeout)
        sample["exec_to_ready_ms"] = (ready_ns - instance.exec_ns) / 1e6
        sample["start_cpu_ms"] = process_cpu_ms(instance.proc.pid)
        sample["start_cpu_wait_ms"] = instance.schedstat()[1] / 1e6
        sample["vmhwm_start_kb"] = instance.status("VmHWM")
        if not fields.get("STATUS", "").startswith(f"{count} scheduled"):
            raise RuntimeError(f"scale: {count:,} expected, chimed's status is {fields.get('STATUS')!r}")
        sample["rss_start_kb"], sample["settle_start_s"] = settled_rss(instance, ready_ns, timeout)
        # The peak of the rebuilds alone, not of the start before them.
        instance.reset_peak()
        for _ in range(rebuilds):
            for _ in range(3):
                cpu, waiting = process_cpu_ms(instance.proc.pid), instance.schedstat()[1]
                sent_ns, done_ns, fields, _, overlapped = requested_rebuild(instance, timeout)
                after_cpu, after_waiting = process_cpu_ms(instance.proc.pid), instance.schedstat()[1]
                if not overlapped:
                    break
            else:
                raise RuntimeError("scale: three SIGHUPs in a row met a rebuild chimed had begun on its own")
            if not fields.get("STATUS", "").startswith(f"{count} scheduled"):
                raise RuntimeError(f"scale: after SIGHUP chimed's status is {fields.get('STATUS')!r}")
            sample["sighup_to_ready_ms"].append((done_ns - sent_ns) / 1e6)
            sample["rebuild_cpu_ms"].append(after_cpu - cpu)
            sample["rebuild_cpu_wait_ms"].append((after_waiting - waiting) / 1e6)
            rss, _ = settled_rss(instance, done_ns, timeout)
            sample["rss_after_each_rebuild_kb"].append(rss)
        sample["rss_rebuilds_kb"] = sample["rss_after_each_rebuild_kb"][-1] if rebuilds else None
        sample["vmhwm_rebuilds_kb"] = instance.status("VmHWM")
        if rebuilds and generator_changes:
            # Last, so that the figures above are those of unchanged output. First the generator prints the same
            # lines in reverse order: each a line printed before, which chimed takes from the rebuild before.
            changed_rebuild(instance, config, count, timeout, sample, "changed", "tac")
            # Then every line differs from every line printed before (each Title edited): each is read again.
            changed_rebuild(instance, config, count, timeout, sample, "edited", "cat", edited=True)
        sample["loadavg_1min"].append(round(os.getloadavg()[0], 2))
    finally:
        instance.close()
    return sample


def scale_size(label, count, form, runs, rebuilds, now, mix):
    """`runs` chimed processes on one configuration of `count` notifications, one after the other."""
    print(f"[scale] {label}: writing the configuration…", file=sys.stderr, flush=True)
    directory = tempfile.mkdtemp(prefix=f"chimed-bench-scale-{count}-")
    timeout = max(60, count / 2000)
    try:
        began = time.monotonic()
        config, output_bytes = write_scale_configuration(directory, count, form, now, mix)
        written_s = time.monotonic() - began
        samples = []
        for run in range(runs):
            print(f"[scale] {label}: run {run + 1} of {runs}…", file=sys.stderr, flush=True)
            samples.append(scale_run(config, count, rebuilds, timeout, generator_changes=form == "generator"))
    finally:
        shutil.rmtree(directory, ignore_errors=True)
    figures = {
        "label": label,
        "count": count,
        "form": form,
        "runs": runs,
        "rebuilds_per_run": rebuilds,
        "generator_output_bytes": output_bytes,
        "configuration_written_s": round(written_s, 1),
        "loadavg_1min": [value for sample in samples for value in sample["loadavg_1min"]],
    }
    for key in ("exec_to_ready_ms", "start_cpu_ms", "start_cpu_wait_ms", "vmhwm_start_kb", "rss_start_kb"):
        figures[key] = spread([sample[key] for sample in samples])
    for key in ("sighup_to_ready_ms", "rebuild_cpu_ms", "rebuild_cpu_wait_ms"):
        figures[key] = spread([value for sample in samples for value in sample[key]])
    if rebuilds:
        for key in ("vmhwm_rebuilds_kb", "rss_rebuilds_kb"):
            figures[key] = spread([sample[key] for sample in samples])
        for key in (
            "changed_sighup_to_ready_ms", "changed_rebuild_cpu_ms", "vmhwm_changed_kb", "rss_changed_kb",
            "edited_sighup_to_ready_ms", "edited_rebuild_cpu_ms", "vmhwm_edited_kb", "rss_edited_kb",
        ):
            if all(key in sample for sample in samples):
                figures[key] = spread([sample[key] for sample in samples])
        figures["rss_after_each_rebuild_kb"] = [sample["rss_after_each_rebuild_kb"] for sample in samples]
    figures["settle_start_s"] = [sample["settle_start_s"] for sample in samples]
    return figures


def scale_derived(results):
    """Bytes per notification and growth exponents, from the measured figures."""
    empty_rss = results["empty"]["rss_start_kb"]["median"]
    empty_ready = results["empty"]["exec_to_ready_ms"]["median"]
    empty_rebuild = results["empty"]["sighup_to_ready_ms"]["median"]
    for size in results["sizes"]:
        for key, name in (
            ("rss_start_kb", "bytes_per_notification_start"),
            ("rss_rebuilds_kb", "bytes_per_notification_rebuilds"),
            ("rss_changed_kb", "bytes_per_notification_changed"),
            ("rss_edited_kb", "bytes_per_notification_edited"),
        ):
            if key in size:
                size[name] = round((size[key]["median"] - empty_rss) * 1024 / size["count"], 1)
    generated = sorted((s for s in results["sizes"] if s["form"] == "generator"), key=lambda s: s["count"])
    growth = []
    for small, large in zip(generated, generated[1:]):
        n1, n2 = small["count"], large["count"]
        row = {"from": n1, "to": n2, "n_log_n": round(n_log_n_exponent(n1, n2), 3)}
        for key, base in (
            ("exec_to_ready_ms", empty_ready),
            ("sighup_to_ready_ms", empty_rebuild),
            ("start_cpu_ms", None),
            ("rebuild_cpu_ms", None),
            ("changed_sighup_to_ready_ms", empty_rebuild),
            ("changed_rebuild_cpu_ms", None),
            ("edited_sighup_to_ready_ms", empty_rebuild),
            ("edited_rebuild_cpu_ms", None),
        ):
            if key not in small or key not in large or min(small[key]["median"], large[key]["median"]) <= 0:
                # Not measured, or below the 10 ms of a CPU-time tick (an unchanged rebuild of 1,000).
                continue
            row[key] = round(growth_exponent(n1, small[key]["median"], n2, large[key]["median"]), 3)
            if base is not None and small[key]["median"] > base and large[key]["median"] > base:
                # Less the empty chimed's time (runtime start-up, the fixed part), which flatters the small size.
                row[key + "_net"] = round(
                    growth_exponent(n1, small[key]["median"] - base, n2, large[key]["median"] - base), 3
                )
        for key in ("rss_start_kb", "rss_rebuilds_kb"):
            if key in small and key in large:
                row[key + "_net"] = round(
                    growth_exponent(n1, small[key]["median"] - empty_rss, n2, large[key]["median"] - empty_rss), 3
                )
        growth.append(row)
    results["growth"] = growth
    return results


def measure_scale(quick, sizes=None, runs=5, large_runs=3, rebuilds=3, mix="wide"):
    """chimed with N notifications from a generator for each N in `sizes`, and the smallest N as files too; an empty
    chimed first, for the baseline. `large_runs` runs for N ≥ 1,000,000. `mix`: `scale_mix`'s wide or narrow."""
    sizes = sizes or ((1_000, 10_000) if quick else SCALE_SIZES)
    if quick:
        runs, large_runs, rebuilds = 2, 1, 2
    if not os.path.exists(settings.CHIMED):
        raise RuntimeError(f"{settings.CHIMED} is missing")
    now = time.time()
    results = {
        "mix": f"{mix}: " + scale_mix.__doc__.split("\n\n", 1)[1].strip(),
        "chimed_conf": SCALE_CONF,
        "started_at": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "loadavg_at_start": [round(value, 2) for value in os.getloadavg()],
        "targets": {"ready_1m_ms": 3000, "rebuild_100k_ms": 300, "bytes_per_notification": 400},
        "sizes": [],
    }
    results["empty"] = scale_size("empty", 0, "empty", runs, rebuilds, now, mix)
    # Files as well for the smallest size, when it is small enough to write as files (10,000 by default).
    smallest = min(sizes)
    plan = [(f"{smallest:,} files", smallest, "files")] if smallest <= 10_000 else []
    plan += [(f"{count:,} from a generator", count, "generator") for count in sorted(sizes)]
    for label, count, form in plan:
        size_runs = large_runs if count >= 1_000_000 else runs
        results["sizes"].append(scale_size(label, count, form, size_runs, rebuilds, now, mix))
    results["loadavg_at_end"] = [round(value, 2) for value in os.getloadavg()]
    return scale_derived(results)
