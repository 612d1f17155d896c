/// A systemd time span (systemd.time(7)): a whole number of microseconds, or infinity.
///
/// This is what `Every=`, `SnoozeSec=` and the relative forms of timestamps (`+5min`, `5min ago`) are made of.
/// Like systemd's `usec_t`, it cannot be negative, and its largest value means "infinity".
public struct Timespan: Hashable, Comparable, Sendable {
    /// The exact length in microseconds; `UInt64.max` stands for infinity, as systemd's `USEC_INFINITY` does.
    public let microseconds: UInt64

    public init(microseconds: UInt64) {
        self.microseconds = microseconds
    }

    /// The span of the given length, truncated to whole microseconds; `nil` when it is negative or does not fit
    /// below infinity.
    public init?(_ duration: Duration) {
        guard duration >= .zero else { return nil }
        let (seconds, attoseconds) = duration.components
        guard UInt64(seconds) <= (UInt64.max - 1) / Self.second else { return nil }
        let total = UInt64(seconds) * Self.second + UInt64(attoseconds / 1_000_000_000_000)
        guard total < UInt64.max else { return nil }
        microseconds = total
    }

    public static let zero = Timespan(microseconds: 0)
    public static let infinity = Timespan(microseconds: .max)

    public var isInfinite: Bool { microseconds == .max }

    /// The span as a `Duration`, or `nil` for infinity.
    public var duration: Duration? {
        guard !isInfinite else { return nil }
        let (seconds, rest) = microseconds.quotientAndRemainder(dividingBy: Self.second)
        return .seconds(Int64(seconds)) + .microseconds(Int64(rest))
    }

    public static func < (lhs: Timespan, rhs: Timespan) -> Bool {
        lhs.microseconds < rhs.microseconds
    }

    static let millisecond: UInt64 = 1_000
    static let second: UInt64 = 1_000_000
    static let minute: UInt64 = 60 * second
    static let hour: UInt64 = 60 * minute
    static let day: UInt64 = 24 * hour
    static let week: UInt64 = 7 * day
    /// systemd's month: 30.44 days.
    static let month: UInt64 = 2_629_800 * second
    /// systemd's year: 365.25 days.
    static let year: UInt64 = 31_557_600 * second
}
