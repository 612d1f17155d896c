import ChimeCore

/// How long a webhook delivery waits before each retry: exponential backoff with equal jitter.
///
/// The ceiling before retry `n` (1 for the first) is `RetrySec=` doubled `n − 1` times, at most `RetryMaxSec=`; the
/// wait is half the ceiling plus a random share of the other half. Equal rather than full jitter: every wait is at
/// least half the ceiling, so a server that is restarting is not asked again at once, and deliveries that failed
/// together still spread out over the other half.
struct WebhookRetryPolicy: Sendable, Equatable {
    /// Attempts after the first.
    var retries: Int
    /// The first ceiling.
    var delay: Duration
    /// The largest ceiling, and the longest a `Retry-After` is honoured.
    var maxDelay: Duration

    /// The ceiling before retry `number` (1 for the first): `delay` doubled `number − 1` times, at most `maxDelay`.
    func ceiling(beforeRetry number: Int) -> Duration {
        var ceiling = min(delay, maxDelay)
        for _ in 1..<max(number, 1) {
            guard ceiling < maxDelay else { break }
            ceiling = min(ceiling * 2, maxDelay)
        }
        return ceiling
    }

    /// The wait before retry `number`: half the ceiling plus `fraction` (in 0..<1, from the random source) of the
    /// other half, rounded down to the nanosecond.
    ///
    /// A server that answered with `Retry-After` (a 429 or 503) gets at least the time it asked for, but no more
    /// than `maxDelay`.
    func wait(beforeRetry number: Int, fraction: Double, retryAfter: Duration? = nil) -> Duration {
        let half = Self.nanoseconds(ceiling(beforeRetry: number)) / 2
        let jitter = Int64((Double(half) * min(max(fraction, 0), 1)).rounded(.down))
        let backoff = Duration.nanoseconds(half + min(jitter, half))
        guard let retryAfter else { return backoff }
        return max(backoff, min(retryAfter, maxDelay))
    }

    /// The longest that all waits of one delivery can add up to: each at most `maxDelay`, which is also what a
    /// `Retry-After` can stretch one to.
    var longestTotalWait: Duration {
        maxDelay * max(retries, 0)
    }

    /// `duration` in nanoseconds; anything beyond 292 years (which no setting reaches) counts as 292 years.
    private static func nanoseconds(_ duration: Duration) -> Int64 {
        duration.wholeNanoseconds
    }
}
