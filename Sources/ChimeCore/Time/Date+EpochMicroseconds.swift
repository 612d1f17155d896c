import Foundation

extension Date {
    /// Seconds between the Unix epoch and Foundation's reference date, 2001-01-01 00:00:00 UTC.
    private static let referenceDateEpochSeconds: Int64 = 978_307_200

    /// The instant `microseconds` after 1970-01-01 00:00:00 UTC (before it when negative).
    ///
    /// A `Date` holds a `Double` of seconds since 2001, which keeps every microsecond exactly enough to round
    /// back to it with `epochMicroseconds` up to the year 2137; beyond that the nearest representable instant.
    public init(epochMicroseconds microseconds: Int64) {
        let (seconds, fraction) = CivilTime.floorDivide(Int(microseconds), 1_000_000)
        self.init(
            timeIntervalSinceReferenceDate: Double(Int64(seconds) - Self.referenceDateEpochSeconds)
                + Double(fraction) / 1e6)
    }

    /// The instant of a systemd `usec_t` timestamp, which can lie beyond `Int64.max` µs (`@` timestamps reach
    /// 2⁶⁴ − 2 µs).
    init(systemdMicroseconds microseconds: UInt64) {
        let (seconds, fraction) = microseconds.quotientAndRemainder(dividingBy: 1_000_000)
        self.init(
            timeIntervalSinceReferenceDate: (Double(seconds) - Double(Self.referenceDateEpochSeconds))
                + Double(fraction) / 1e6)
    }

    /// Microseconds since 1970-01-01 00:00:00 UTC, rounded to the nearest microsecond; clamped to the range of
    /// `Int64` (±292 000 years).
    public var epochMicroseconds: Int64 {
        let interval = timeIntervalSinceReferenceDate
        guard interval.isFinite else { return interval < 0 ? .min : .max }
        let whole = interval.rounded(.down)
        guard abs(whole) < 9.2e12 else { return whole < 0 ? .min : .max }
        let fraction = ((interval - whole) * 1e6).rounded()
        return (Int64(whole) + Self.referenceDateEpochSeconds) * 1_000_000 + Int64(fraction)
    }
}
