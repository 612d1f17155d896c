"""Statistics of measured figures: percentiles, the spread over runs, slopes and growth exponents."""

import math
import statistics


def percentile(values, fraction):
    """Nearest-rank percentile of a non-empty list."""
    ordered = sorted(values)
    rank = max(1, -(-int(fraction * 1000) * len(ordered) // 1000))
    return ordered[min(rank, len(ordered)) - 1]


def spread(values):
    """median, min, max and the list itself, for a figure measured over several runs."""
    return {
        "median": round(statistics.median(values), 3),
        "min": round(min(values), 3),
        "max": round(max(values), 3),
        "runs": [round(v, 3) for v in values],
    }


def slope_per_minute(points):
    """Least-squares slope of (seconds, value) points, per minute."""
    if len(points) < 2:
        return 0.0
    xs = [p[0] for p in points]
    ys = [p[1] for p in points]
    mx, my = statistics.fmean(xs), statistics.fmean(ys)
    var = sum((x - mx) ** 2 for x in xs)
    if var == 0:
        return 0.0
    return 60 * sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / var


def growth_exponent(n1, t1, n2, t2):
    """k in t ∝ n^k between two sizes."""
    return math.log(t2 / t1) / math.log(n2 / n1)


def n_log_n_exponent(n1, n2):
    """The exponent n log n has between two sizes: 1 + log(log n2 / log n1) / log(n2 / n1)."""
    return 1 + math.log(math.log(n2) / math.log(n1)) / math.log(n2 / n1)
