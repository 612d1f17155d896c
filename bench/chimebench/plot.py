"""The scale figures as a log-log SVG (bench/results/scale-latest.svg), drawn by hand."""

import math
import os

from . import settings


def scale_svg(scale):
    """The scaling rows as a log-log SVG, written by hand: time against N on the left, memory on the right."""
    generated = sorted((s for s in scale["sizes"] if s["form"] == "generator"), key=lambda s: s["count"])
    files = [s for s in scale["sizes"] if s["form"] == "files"]
    empty = scale["empty"]
    width, height = 1000, 540
    panel_w, panel_h = 380, 300
    origins = [(90, 50), (590, 50)]
    counts = [s["count"] for s in generated]
    # Half a decade of room on each side of the sizes measured.
    x_low, x_high = min(counts) / 3, max(counts) * 3
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" viewBox="0 0 {width} {height}" '
        'font-family="DejaVu Sans, Helvetica, Arial, sans-serif" font-size="12">',
        f'<rect width="{width}" height="{height}" fill="white"/>',
        f'<text x="{width / 2}" y="22" text-anchor="middle" font-size="15">chimed: start-up, rebuild and memory '
        f"against the number of notifications (log-log; {scale['started_at'][:10]}, median, bars min–max)</text>",
    ]

    def escape(text):
        return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")

    def panel(origin, title, unit, series, guides, targets):
        left, top = origin
        values = [v for _, _, points, _ in series for _, v, low, high in points for v in (v, low, high)]
        values += [v for _, points, _ in guides for _, v in points] + [v for _, v, _ in targets]
        y_low = 10 ** math.floor(math.log10(min(values)))
        y_high = 10 ** math.ceil(math.log10(max(values)))

        def x(n):
            return left + panel_w * (math.log10(n) - math.log10(x_low)) / (math.log10(x_high) - math.log10(x_low))

        def y(v):
            fraction = (math.log10(v) - math.log10(y_low)) / (math.log10(y_high) - math.log10(y_low))
            return top + panel_h - panel_h * fraction

        out.append(
            f'<text x="{left + panel_w / 2}" y="{top - 8}" text-anchor="middle" font-size="13">{escape(title)}</text>'
        )
        out.append(f'<rect x="{left}" y="{top}" width="{panel_w}" height="{panel_h}" fill="none" stroke="#444"/>')
        decade = 10 ** math.ceil(math.log10(x_low))
        while decade <= x_high:
            out.append(
                f'<line x1="{x(decade):.1f}" y1="{top}" x2="{x(decade):.1f}" y2="{top + panel_h}" stroke="#ddd"/>'
            )
            out.append(
                f'<text x="{x(decade):.1f}" y="{top + panel_h + 16}" text-anchor="middle">{decade:,}</text>'
            )
            decade *= 10
        out.append(
            f'<text x="{left + panel_w / 2}" y="{top + panel_h + 34}" text-anchor="middle">notifications (N)</text>'
        )
        decade = y_low
        while decade <= y_high:
            label = f"{decade:,.0f}" if decade >= 1 else f"{decade:g}"
            out.append(
                f'<line x1="{left}" y1="{y(decade):.1f}" x2="{left + panel_w}" y2="{y(decade):.1f}" stroke="#ddd"/>'
            )
            out.append(f'<text x="{left - 6}" y="{y(decade) + 4:.1f}" text-anchor="end">{label}</text>')
            decade *= 10
        out.append(
            f'<text x="{left - 58}" y="{top + panel_h / 2}" text-anchor="middle" '
            f'transform="rotate(-90 {left - 58} {top + panel_h / 2})">{escape(unit)}</text>'
        )
        for _, points, style in guides:
            path = " ".join(f"{x(n):.1f},{y(v):.1f}" for n, v in points)
            out.append(f'<polyline points="{path}" fill="none" {style}/>')
        for name, colour, points, marker in series:
            if len(points) > 1:
                path = " ".join(f"{x(n):.1f},{y(v):.1f}" for n, v, _, _ in points)
                out.append(f'<polyline points="{path}" fill="none" stroke="{colour}" stroke-width="2"/>')
            for n, v, low, high in points:
                out.append(
                    f'<line x1="{x(n):.1f}" y1="{y(low):.1f}" x2="{x(n):.1f}" y2="{y(high):.1f}" stroke="{colour}"/>'
                )
                if marker == "square":
                    out.append(f'<rect x="{x(n) - 4:.1f}" y="{y(v) - 4:.1f}" width="8" height="8" fill="{colour}"/>')
                elif marker == "hollow":
                    out.append(
                        f'<circle cx="{x(n):.1f}" cy="{y(v):.1f}" r="5" fill="white" '
                        f'stroke="{colour}" stroke-width="2"/>'
                    )
                else:
                    out.append(f'<circle cx="{x(n):.1f}" cy="{y(v):.1f}" r="4" fill="{colour}"/>')
        for n, v, label in targets:
            out.append(
                f'<path d="M{x(n) - 7:.1f},{y(v):.1f} h14 M{x(n):.1f},{y(v) - 7:.1f} v14" '
                'stroke="#c00" stroke-width="2"/>'
            )
            # Labels go inside the frame: left of a mark in the right half, right of one in the left half.
            if x(n) > left + panel_w / 2:
                anchor, label_x = "end", x(n) - 10
            else:
                anchor, label_x = "start", x(n) + 10
            out.append(
                f'<text x="{label_x:.1f}" y="{y(v) + 4:.1f}" text-anchor="{anchor}" fill="#c00">{escape(label)}</text>'
            )
        legend_y = top + panel_h + 52
        entries = [(name, colour, marker) for name, colour, _, marker in series]
        entries += [(name, None, style) for name, _, style in guides]
        for index, (name, colour, marker) in enumerate(entries):
            lx, ly = left, legend_y + index * 16
            if colour is None:
                out.append(f'<line x1="{lx:.1f}" y1="{ly - 4}" x2="{lx + 18:.1f}" y2="{ly - 4}" {marker}/>')
            elif marker == "hollow":
                out.append(
                    f'<circle cx="{lx + 9:.1f}" cy="{ly - 4}" r="5" fill="white" stroke="{colour}" stroke-width="2"/>'
                )
            else:
                out.append(
                    f'<line x1="{lx:.1f}" y1="{ly - 4}" x2="{lx + 18:.1f}" y2="{ly - 4}" '
                    f'stroke="{colour}" stroke-width="2"/>'
                )
            out.append(f'<text x="{lx + 24:.1f}" y="{ly}">{escape(name)}</text>')

    def points(sizes, key, scale_by=1.0):
        return [
            (s["count"], s[key]["median"] * scale_by, s[key]["min"] * scale_by, s[key]["max"] * scale_by) for s in sizes
        ]

    def guide(anchor_n, anchor_v, exponent_fn):
        return [(n, anchor_v * exponent_fn(n) / exponent_fn(anchor_n)) for n in (x_low, x_high)]

    first = generated[0]
    time_series = [
        ("exec → READY=1 (generator)", "#1f77b4", points(generated, "exec_to_ready_ms"), "circle"),
        ("SIGHUP → READY=1 (generator)", "#ff7f0e", points(generated, "sighup_to_ready_ms"), "square"),
        ("CPU of a start (generator)", "#2ca02c", points(generated, "start_cpu_ms"), "circle"),
    ]
    if files:
        time_series.append(("exec → READY=1 (files)", "#1f77b4", points(files, "exec_to_ready_ms"), "hollow"))
        time_series.append(("SIGHUP → READY=1 (files)", "#ff7f0e", points(files, "sighup_to_ready_ms"), "hollow"))
    anchor = first["exec_to_ready_ms"]["median"]
    time_guides = [
        (
            "∝ n log n from the smallest start",
            guide(first["count"], anchor, lambda n: n * math.log(n)),
            'stroke="#888" stroke-dasharray="6 4"',
        ),
        ("∝ n", guide(first["count"], anchor, lambda n: n), 'stroke="#bbb" stroke-dasharray="2 3"'),
    ]
    time_targets = [
        (1_000_000, scale["targets"]["ready_1m_ms"], "target: ready ≤ 3 s"),
        (100_000, scale["targets"]["rebuild_100k_ms"], "target: rebuild ≤ 300 ms"),
    ]
    panel(origins[0], "Time to READY=1", "milliseconds", time_series, time_guides, time_targets)

    mib = 1 / 1024
    memory_series = [
        ("peak RSS, after the rebuilds", "#d62728", points(generated, "vmhwm_rebuilds_kb", mib), "square"),
        ("steady RSS, after the rebuilds", "#9467bd", points(generated, "rss_rebuilds_kb", mib), "circle"),
        ("steady RSS, after start", "#1f77b4", points(generated, "rss_start_kb", mib), "circle"),
    ]
    if files:
        memory_series.append(("steady RSS, files", "#9467bd", points(files, "rss_rebuilds_kb", mib), "hollow"))
    base = empty["rss_start_kb"]["median"] * mib
    memory_guides = [
        (
            "target: empty chimed + 400 B each",
            [(n, base + 400 * n / 1024 / 1024) for n in (x_low * (x_high / x_low) ** (i / 24) for i in range(25))],
            'stroke="#c00" stroke-dasharray="6 4"',
        ),
        ("empty chimed", [(x_low, base), (x_high, base)], 'stroke="#888" stroke-dasharray="2 3"'),
    ]
    panel(origins[1], "Memory", "MiB", memory_series, memory_guides, [])
    out.append("</svg>")
    return "\n".join(out) + "\n"


def write_scale_svg(scale):
    """bench/results/scale-latest.svg from the scale figures, written whole (a temporary file, then renamed)."""
    temporary = settings.SCALE_SVG + ".tmp"
    with open(temporary, "w") as handle:
        handle.write(scale_svg(scale))
    os.replace(temporary, settings.SCALE_SVG)
