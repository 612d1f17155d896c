"""Times as text and back: chimed's ISO 8601 times, and UTC timestamps to the second (as chimed reads them) and to
the microsecond (for logs)."""

import datetime
import time


def iso_us(text):
    """ISO 8601 UTC ("2026-11-30T09:38:05.000126Z", fraction optional) as µs since the epoch, exactly."""
    layout = "%Y-%m-%dT%H:%M:%S.%fZ" if "." in text else "%Y-%m-%dT%H:%M:%SZ"
    moment = datetime.datetime.strptime(text, layout).replace(tzinfo=datetime.timezone.utc)
    return (moment - datetime.datetime(1970, 1, 1, tzinfo=datetime.timezone.utc)) // datetime.timedelta(
        microseconds=1
    )


def utc_text(epoch_seconds):
    """A timestamp chimed reads (At=, From=, Until=), to the second: "2026-11-30 09:38:05 UTC"."""
    return time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime(epoch_seconds))


def utc_text_us(us):
    """µs since the epoch as UTC to the microsecond: "2026-11-30 09:38:05.000126 UTC"."""
    return datetime.datetime.fromtimestamp(us / 1_000_000, datetime.timezone.utc).strftime("%Y-%m-%d %H:%M:%S.%f UTC")
