"""The report: the table of every figure against its target, the scale tables, and the figures saved as JSON."""

import datetime
import json
import os
import subprocess
import tempfile

from . import settings
from .plot import write_scale_svg


def table_rows(results, calendar=None):
    """The table: a row per figure (metric, chime's figure, target, the peer's figure, pass), bench/run's calendar
    rows first when given."""
    rows = []

    def add(metric, value, target, peer, passed):
        rows.append({"metric": metric, "chime": value, "target": target, "peer": peer, "pass": passed})

    # Row 1 of the suite: bench/run's calendar throughput, run just before by "make bench".
    for row in (calendar or {}).get("rows", []):
        chime, systemd = row["chime"]["wall_median_s"], row["systemd"]["wall_median_s"]
        add(
            f"calendar --iterations={row['iterations']:,} {row['spec']} ({row['environment']})",
            f"{chime * 1000:.1f} ms",
            f"≥ {calendar['required_ratio']:g}× faster",
            f"systemd-analyze {systemd * 1000:.1f} ms: {row['ratio']:.1f}×",
            row["ratio"] >= calendar["required_ratio"],
        )

    if "latency" in results:
        for name, label in (("staggered", "20 staggered"), ("same_second", "10 same second")):
            figures = results["latency"][name]
            add(f"latency p50 ({label}, {figures['fires']} fires)", f"{figures['p50_ms']:.3f} ms", None, None, None)
            window = figures["p99_per_10s_window_ms"]
            detail = (
                f" (per 10 s window: median {window['median']:.2f}, {window['min']:.2f}–{window['max']:.2f})"
                if window
                else ""
            )
            add(
                f"latency p99 ({label})",
                f"{figures['p99_ms']:.3f} ms{detail}",
                "≤ 2 ms",
                None,
                figures["p99_ms"] <= settings.TARGETS["latency_p99_ms"],
            )
            add(f"latency max ({label})", f"{figures['max_ms']:.3f} ms", None, None, None)
            add(
                "  chimed per wake-up: on-CPU / waiting for CPU",
                f"{figures['cpu_ms_per_wakeup']:.3f} / {figures['cpu_wait_ms_per_wakeup']:.3f} ms, "
                f"{figures['context_switches_per_wakeup']:.1f} switches (load {figures['loadavg_after']:.1f})",
                None,
                None,
                None,
            )
        fifo = results["latency"].get("staggered_sched_fifo")
        if fifo:
            add(
                f"  diagnostic: 20 staggered under SCHED_FIFO ({fifo['fires']} fires) p50 / p99 / max",
                f"{fifo['p50_ms']:.3f} / {fifo['p99_ms']:.3f} / {fifo['max_ms']:.3f} ms",
                None,
                None,
                None,
            )
    if "burst" in results:
        burst = results["burst"]
        for key, label, target in (
            ("last_handoff_ms", "burst 10,000: fire → last hand-off", "≤ 500 ms"),
            ("first_handoff_ms", "burst 10,000: fire → first hand-off", None),
            ("last_line_written_ms", "burst 10,000: fire → last line on stdout", None),
        ):
            figure = burst[key]
            add(
                label,
                f"{figure['median']:.1f} ms ({figure['min']:.1f}–{figure['max']:.1f})",
                target,
                None,
                figure["median"] <= settings.TARGETS["burst_last_handoff_ms"] if target else None,
            )
        add("burst 10,000: peak RSS (VmHWM)", f"{burst['vmhwm_kb']['median'] / 1024:.1f} MiB", None, None, None)
    if "idle" in results:
        idle = results["idle"]
        add(
            f"idle context switches ({idle['window_s']} s window)",
            f"{idle['chimed']['per_hour']:.0f}/h ({idle['chimed']['switches']} seen)",
            "0/h",
            f"cron {idle['cron']['per_hour']:.0f}/h ({idle['cron']['switches']} seen)",
            idle["chimed"]["per_hour"] <= settings.TARGETS["idle_switches_per_hour"],
        )
    if "startup" in results:
        startup = results["startup"]
        for key, label, target_key in (
            ("exec_to_ready_ms", "start-up 10,000 files: exec → READY=1", "startup_ready_ms"),
            ("sighup_to_ready_ms", "rebuild 10,000 files: SIGHUP → READY=1", "rebuild_ready_ms"),
        ):
            figure = startup[key]
            add(
                label,
                f"{figure['median']:.0f} ms ({figure['min']:.0f}–{figure['max']:.0f}, n={len(figure['runs'])})",
                "≤ 200 ms",
                None,
                figure["median"] <= settings.TARGETS[target_key],
            )
        for cpu, wait, label in (
            ("start_cpu_ms", "start_cpu_wait_ms", "start-up"),
            ("rebuild_cpu_ms", "rebuild_cpu_wait_ms", "rebuild"),
        ):
            add(
                f"  {label}: chimed on-CPU / waiting for a CPU",
                f"{startup[cpu]['median']:.0f} / {startup[wait]['median']:.0f} ms "
                f"({startup[cpu]['min']:.0f}–{startup[cpu]['max']:.0f} / "
                f"{startup[wait]['min']:.0f}–{startup[wait]['max']:.0f})",
                None,
                None,
                None,
            )
        add(
            "10,000 files: peak RSS (VmHWM) after start / after rebuilds",
            f"{startup['vmhwm_after_start_kb']['median'] / 1024:.1f} / "
            f"{startup['vmhwm_after_rebuilds_kb']['median'] / 1024:.1f} MiB",
            None,
            None,
            None,
        )
    if "scale" in results:
        scale_table_rows(results["scale"], add)
    if "nextfire" in results:
        for row in results["nextfire"]["cases"]:
            figure = row["ns_per_call"]
            peer = row.get("peer")
            add(
                f"next fire: {row['kind']}",
                f"{figure['median']:,.0f} ns ({figure['min']:,.0f}–{figure['max']:,.0f})",
                None,
                f"{peer['systemd_ns_per_elapse']:,.0f} ns per elapse ({peer['environment']})" if peer else None,
                None,
            )
    if "peer" in results:
        sizes = results["peer"]["sizes"].values()
        for peer in sorted(sizes, key=lambda peer: (peer["count"], peer.get("shared_service", False))):
            label = f"{peer['count']:,} calendar timers"
            if peer.get("shared_service"):
                label += " sharing one service"
            if "gave_up" in peer:
                rebuild = peer.get("sighup_to_ready_ms")
                chime = "—"
                if rebuild:
                    chime = f"{rebuild['median']:.0f} ms ({rebuild['min']:.0f}–{rebuild['max']:.0f})"
                add(f"{label}: SIGHUP → READY=1 / daemon-reload", chime, None, peer["gave_up"], None)
                continue
            reload, rebuild = peer["daemon_reload_ms"], peer["sighup_to_ready_ms"]
            add(
                f"{label}: SIGHUP → READY=1 / systemctl daemon-reload ({peer['reload_ratio']:.1f}× faster)",
                f"{rebuild['median']:.1f} ms ({rebuild['min']:.1f}–{rebuild['max']:.1f})",
                "≥ 10× faster",
                f"{reload['median']:.0f} ms ({reload['min']:.0f}–{reload['max']:.0f})",
                peer["reload_ratio"] >= settings.TARGETS["peer_reload_ratio"],
            )
            chimed_cpu = peer.get("chimed_cpu_ms")
            add(
                f"  {label}: on a CPU (chimed / PID 1)",
                f"{chimed_cpu['median']:.1f} ms" if chimed_cpu else "—",
                None,
                f"{peer['pid1_cpu_ms']['median']:.0f} ms",
                None,
            )
            add(
                f"  {label}: RSS loaded (chimed / PID 1), per notification / per timer + service",
                f"{peer['chimed_rss_loaded_kb'] / 1024:.1f} MiB, {peer['chimed_kb_per_notification']:.2f} KiB each",
                None,
                f"{peer['pid1_rss_loaded_kb'] / 1024:.1f} MiB, {peer['pid1_kb_per_timer']:.2f} KiB each",
                None,
            )
    if "interface" in results:
        interface = results["interface"]
        chime, systemd, count = interface["chime"], interface["systemd_run"], interface["count"]
        burst = chime["burst"]
        made = f"{systemd['made']:,} made in {systemd['total_ms'] / 1000:.1f} s"
        if systemd["made"] < count:
            made += f" (budget {systemd['budget_s']} s)"
        add(
            f"{count:,} Adds from one client until all pending / systemd-run --user --on-active= one by one"
            + (f" ({interface['ratio']:.0f}× faster)" if interface["ratio"] else ""),
            f"{burst['listed_ms']:.0f} ms (answered in {burst['answered_ms']:.0f} ms)",
            f"≤ {settings.TARGETS['interface_burst_ms'] / 1000:g} s, ≥ {settings.TARGETS['interface_ratio']:g}× faster",
            f"{made}; {systemd['timers_listed']:,} timers listed",
            burst["listed_ms"] <= settings.TARGETS["interface_burst_ms"]
            and (interface["ratio"] or 0) >= settings.TARGETS["interface_ratio"],
        )
        for key in ("round_trip", "round_trip_loaded"):
            figure = chime[key]
            pending = f"{figure['pending']:,} pending" if "pending" in figure else "from none pending"
            add(
                f"Add round trip p50 / p99 ({figure['count']} one after another, {pending}) / systemd-run per call",
                f"{figure['p50_us'] / 1000:.2f} / {figure['p99_us'] / 1000:.2f} ms",
                f"p99 ≤ {settings.TARGETS['interface_round_trip_p99_ms']:g} ms",
                f"{systemd['call']['p50_us'] / 1000:.1f} / {systemd['call']['p99_us'] / 1000:.1f} ms",
                figure["p99_us"] / 1000 <= settings.TARGETS["interface_round_trip_p99_ms"],
            )
    if "sound" in results:
        sound = results["sound"]
        add(
            f"sound: fire → first audible sample p50 / p99 ({sound['heard']} of {sound['sounds']} heard)",
            f"{sound['p50_ms']:.0f} / {sound['p99_ms']:.0f} ms (max {sound['max_ms']:.0f})",
            f"p99 ≤ {settings.TARGETS['sound_audible_p99_ms']:g} ms",
            None,
            sound["p99_ms"] <= settings.TARGETS["sound_audible_p99_ms"],
        )
        add(
            "sound: chimed's memory with the audio pipeline idle / never played",
            f"{sound['idle_rss_mib']:.1f} / {sound['silent_rss_mib']:.1f} MiB"
            + (f" (helper {sound['helper_rss_mib']:.1f} MiB until idle)" if sound.get("helper_rss_mib") else ""),
            f"≤ +{settings.TARGETS['sound_idle_memory_mib']:g} MiB",
            None,
            sound["idle_above_silent_mib"] <= settings.TARGETS["sound_idle_memory_mib"],
        )
    return rows


def scale_verdict(figure, target):
    """A scale figure against its target (a bound from above)."""
    return "pass" if figure <= target else "miss"


def scale_markdown(scale):
    """The scale figures as the Markdown tables of bench/scale.md."""
    targets = scale["targets"]
    empty = scale["empty"]
    lines = [
        "| N | form | runs | exec → READY=1 | on a CPU | SIGHUP → READY=1 | on a CPU "
        "| peak RSS start / during rebuilds | steady RSS start / after rebuilds | bytes per notification |",
        "|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]

    def ms(figure):
        return f"{figure['median']:,.0f} ms ({figure['min']:,.0f}–{figure['max']:,.0f})"

    def mib(kb):
        return f"{kb / 1024:,.1f}"

    for size in [empty, *scale["sizes"]]:
        per = (
            f"{size['bytes_per_notification_start']:,.0f} / {size['bytes_per_notification_rebuilds']:,.0f}"
            if size["count"]
            else "—"
        )
        lines.append(
            f"| {size['count']:,} | {size['form']} | {size['runs']} × {size['rebuilds_per_run']} | "
            f"{ms(size['exec_to_ready_ms'])} | {size['start_cpu_ms']['median']:,.0f} ms | "
            f"{ms(size['sighup_to_ready_ms'])} | {size['rebuild_cpu_ms']['median']:,.0f} ms | "
            f"{mib(size['vmhwm_start_kb']['median'])} / {mib(size['vmhwm_rebuilds_kb']['median'])} MiB | "
            f"{mib(size['rss_start_kb']['median'])} / {mib(size['rss_rebuilds_kb']['median'])} MiB | {per} |"
        )
    changed = [size for size in scale["sizes"] if "changed_sighup_to_ready_ms" in size]
    if changed:
        lines += [
            "",
            "A rebuild reuses a generator's notifications when it printed the same bytes, and a changed output's lines "
            "that it printed before (chimed(8)); after the rebuilds above, each run had one more whose generator "
            "printed its lines in reverse order (every line printed before, in another place), and then one whose "
            "every line differed from every line before (each Title edited), so that every line was read again:",
            "",
            "| N | form | runs | output reordered: SIGHUP → READY=1 | on a CPU | peak RSS | "
            "every line edited: SIGHUP → READY=1 | on a CPU | peak RSS | steady RSS after |",
            "|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|",
        ]

        def shown(size, key, show):
            return show(size[key]) if key in size else "—"

        def peak(size, key):
            return shown(size, key, lambda value: f"{mib(value['median'])} MiB")

        def cpu(size, key):
            return shown(size, key, lambda value: f"{value['median']:,.0f} ms")

        for size in changed:
            after = "rss_edited_kb" if "rss_edited_kb" in size else "rss_changed_kb"
            lines.append(
                f"| {size['count']:,} | {size['form']} | {size['runs']} | {ms(size['changed_sighup_to_ready_ms'])} | "
                f"{cpu(size, 'changed_rebuild_cpu_ms')} | {peak(size, 'vmhwm_changed_kb')} | "
                f"{shown(size, 'edited_sighup_to_ready_ms', ms)} | {cpu(size, 'edited_rebuild_cpu_ms')} | "
                f"{peak(size, 'vmhwm_edited_kb')} | {peak(size, after)} |"
            )
    lines += ["", "| target | figure | verdict |", "|---|---:|---|"]
    by_count = {size["count"]: size for size in scale["sizes"] if size["form"] == "generator"}
    if 1_000_000 in by_count:
        figure = by_count[1_000_000]["exec_to_ready_ms"]["median"]
        verdict = scale_verdict(figure, targets["ready_1m_ms"])
        lines.append(f"| 1,000,000 ready (exec → READY=1) ≤ 3 s | {figure / 1000:,.2f} s | {verdict} |")
    if 100_000 in by_count:
        figure = by_count[100_000]["sighup_to_ready_ms"]["median"]
        verdict = scale_verdict(figure, targets["rebuild_100k_ms"])
        lines.append(f"| rebuild of 100,000 (SIGHUP → READY=1) ≤ 300 ms | {figure:,.0f} ms | {verdict} |")
    for count, size in sorted(by_count.items()):
        figure = max(
            size[key]
            for key in (
                "bytes_per_notification_start",
                "bytes_per_notification_rebuilds",
                "bytes_per_notification_changed",
                "bytes_per_notification_edited",
            )
            if key in size
        )
        verdict = scale_verdict(figure, targets["bytes_per_notification"])
        lines.append(
            f"| ≤ 400 bytes per notification, {count:,} (steady RSS less an empty chimed's, the largest of after "
            f"start, after the rebuilds and after the rebuild with changed output) | {figure:,.0f} B | {verdict} |"
        )
    if 1_000_000 in by_count:
        size = by_count[1_000_000]
        steady = size["rss_start_kb"]["median"]
        peaks = [size["vmhwm_rebuilds_kb"]["median"]]
        for key in ("vmhwm_changed_kb", "vmhwm_edited_kb"):
            if key in size:
                peaks.append(size[key]["median"])
        ratio = max(peaks) / steady
        verdict = scale_verdict(ratio, 1.5)
        lines.append(
            f"| 1,000,000: peak RSS during a rebuild (output the same or changed) ≤ 1.5 × steady | {ratio:.2f} × "
            f"| {verdict} |"
        )
    for row in scale["growth"]:
        bound = row["n_log_n"]
        for key, name in (
            ("exec_to_ready_ms", "exec → READY=1"),
            ("sighup_to_ready_ms", "SIGHUP → READY=1"),
            ("start_cpu_ms", "CPU of a start"),
            ("rebuild_cpu_ms", "CPU of a rebuild"),
            ("changed_sighup_to_ready_ms", "SIGHUP → READY=1, output changed"),
            ("changed_rebuild_cpu_ms", "CPU of a rebuild, output changed"),
            ("edited_sighup_to_ready_ms", "SIGHUP → READY=1, every line edited"),
            ("edited_rebuild_cpu_ms", "CPU of a rebuild, every line edited"),
            ("rss_rebuilds_kb", "steady RSS after rebuilds less empty"),
        ):
            raw = row.get(key)
            net = row.get(key + "_net")
            if raw is None and net is None:
                continue
            shown = raw if raw is not None else net
            text = f"{shown:.3f}"
            if raw is not None and net is not None:
                text += f" ({net:.3f} less the empty chimed's)"
            worst = max(value for value in (raw, net) if value is not None)
            lines.append(
                f"| growth {row['from']:,} → {row['to']:,}, {name}: exponent ≤ {bound:.3f} (n log n) | {text} | "
                f"{scale_verdict(worst, bound)} |"
            )
    return "\n".join(lines)


def scale_table_rows(scale, add):
    """The scale figures as rows of the table, through table_rows's `add`."""
    targets = scale["targets"]
    for size in [scale["empty"], *scale["sizes"]]:
        label = "empty chimed" if not size["count"] else size["label"]
        ready, rebuild = size["exec_to_ready_ms"], size["sighup_to_ready_ms"]
        ready_target = rebuild_target = None
        ready_pass = rebuild_pass = None
        if size["form"] == "generator" and size["count"] == 1_000_000:
            ready_target, ready_pass = "≤ 3 s", ready["median"] <= targets["ready_1m_ms"]
        if size["form"] == "generator" and size["count"] == 100_000:
            rebuild_target, rebuild_pass = "≤ 300 ms", rebuild["median"] <= targets["rebuild_100k_ms"]
        add(
            f"scale, {label}: exec → READY=1 (n={len(ready['runs'])})",
            f"{ready['median']:,.0f} ms ({ready['min']:,.0f}–{ready['max']:,.0f}); "
            f"CPU {size['start_cpu_ms']['median']:,.0f} ms",
            ready_target,
            None,
            ready_pass,
        )
        add(
            f"scale, {label}: SIGHUP → READY=1 (n={len(rebuild['runs'])})",
            f"{rebuild['median']:,.0f} ms ({rebuild['min']:,.0f}–{rebuild['max']:,.0f}); "
            f"CPU {size['rebuild_cpu_ms']['median']:,.0f} ms",
            rebuild_target,
            None,
            rebuild_pass,
        )
        for key, what in (("changed", "generator output reordered"), ("edited", "every line of the output edited")):
            if f"{key}_sighup_to_ready_ms" in size:
                changed = size[f"{key}_sighup_to_ready_ms"]
                add(
                    f"scale, {label}: SIGHUP → READY=1, {what} (n={len(changed['runs'])})",
                    f"{changed['median']:,.0f} ms ({changed['min']:,.0f}–{changed['max']:,.0f}); "
                    f"CPU {size[f'{key}_rebuild_cpu_ms']['median']:,.0f} ms",
                    None,
                    None,
                    None,
                )
        memory = (
            f"peak {size['vmhwm_start_kb']['median'] / 1024:,.1f} / {size['vmhwm_rebuilds_kb']['median'] / 1024:,.1f} "
            f"MiB, steady {size['rss_start_kb']['median'] / 1024:,.1f} / "
            f"{size['rss_rebuilds_kb']['median'] / 1024:,.1f} MiB"
        )
        per_target = per_pass = None
        if size["count"]:
            worst = max(
                size.get(key, 0)
                for key in (
                    "bytes_per_notification_start",
                    "bytes_per_notification_rebuilds",
                    "bytes_per_notification_changed",
                )
            )
            memory += f"; {worst:,.0f} B per notification"
            per_target, per_pass = "≤ 400 B", worst <= targets["bytes_per_notification"]
        add(f"scale, {label}: RSS after start / after rebuilds", memory, per_target, None, per_pass)
    for row in scale["growth"]:
        worst = max(
            row.get(key) or 0
            for key in (
                "exec_to_ready_ms",
                "sighup_to_ready_ms",
                "exec_to_ready_ms_net",
                "sighup_to_ready_ms_net",
                "rss_rebuilds_kb_net",
            )
        )
        add(
            f"scale, growth {row['from']:,} → {row['to']:,}: exponent of time (start, rebuild) and memory",
            f"{row['exec_to_ready_ms']:.2f}, {row['sighup_to_ready_ms']:.2f}, {row.get('rss_rebuilds_kb_net', 0):.2f}",
            f"≤ {row['n_log_n']:.2f} (n log n)",
            None,
            worst <= row["n_log_n"],
        )


def print_table(rows):
    """The table as text, its columns aligned."""
    if not rows:
        return
    headers = ["metric", "chime", "target", "peer", "pass"]
    cells = [
        [
            r["metric"],
            r["chime"],
            r["target"] or "—",
            r["peer"] or "—",
            "—" if r["pass"] is None else ("pass" if r["pass"] else "FAIL"),
        ]
        for r in rows
    ]
    widths = [max(len(h), *(len(c[i]) for c in cells)) for i, h in enumerate(headers)]
    print(" | ".join(h.ljust(w) for h, w in zip(headers, widths)))
    print("-+-".join("-" * w for w in widths))
    for row in cells:
        print(" | ".join(c.ljust(w) for c, w in zip(row, widths)))


def source_revision():
    """The commit chimed is built from, marked when Sources/ differs from it (read before building)."""
    root = settings.ROOT
    revision = subprocess.run(
        ["git", "-C", root, "rev-parse", "--short", "HEAD"], capture_output=True, text=True, check=False
    ).stdout.strip()
    dirty = subprocess.run(
        ["git", "-C", root, "status", "--porcelain", "--", "Sources"], capture_output=True, text=True, check=False
    ).stdout.strip()
    return revision + ("+uncommitted Sources changes" if dirty else "")


def machine(revision):
    """What the figures were measured on, and which chimed: `revision` (source_revision) for the repository's own."""
    return {
        "cpus": os.cpu_count(),
        "kernel": os.uname().release,
        "chimed": revision if settings.CHIMED.startswith(settings.ROOT) else settings.CHIMED,
        "runtime_dir_base": settings.RUNTIME_BASE or tempfile.gettempdir(),
    }


def save(results, revision):
    """Merges `results` into bench/results/daemon-latest.json, with the table of every figure saved so far, and
    draws the scale SVG again when scale is among them."""
    os.makedirs(os.path.dirname(settings.RESULTS), exist_ok=True)
    try:
        with open(settings.RESULTS) as handle:
            document = json.load(handle)
    except (FileNotFoundError, json.JSONDecodeError):
        document = {}
    now = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    document.setdefault("measurements", {})
    for name, figures in results.items():
        if name == "peer":
            # Sizes measured by separate runs (bench/daemon peer --peer-sizes=100000) accumulate.
            earlier = document["measurements"].get("peer", {}).get("sizes", {})
            figures = dict(figures, sizes=dict(earlier, **figures["sizes"]))
        document["measurements"][name] = dict(figures, measured_at=now, machine=machine(revision))
    document["targets"] = settings.TARGETS
    document["table"] = table_rows(document["measurements"])
    temporary = settings.RESULTS + ".tmp"
    with open(temporary, "w") as handle:
        json.dump(document, handle, indent=2, ensure_ascii=False)
        handle.write("\n")
    os.replace(temporary, settings.RESULTS)
    if "scale" in results:
        write_scale_svg(document["measurements"]["scale"])


def replot():
    """bench/daemon plot: the scale SVG and tables again from the saved figures, without measuring."""
    with open(settings.RESULTS) as handle:
        scale = json.load(handle)["measurements"]["scale"]
    write_scale_svg(scale)
    print(scale_markdown(scale))
    print(f"\nplot written to {os.path.relpath(settings.SCALE_SVG)}")
    return 0
