import Foundation

/// `Date` is chime's instant above the schedule's packed storage, and `Duration` its interval: their arithmetic in
/// whole microseconds, the resolution of every instant chime keeps, so that an instant made this way and stored
/// (`epochMicroseconds`) reads back the same.
extension Date {
    /// The instant `duration` after `date`.
    public static func + (date: Date, duration: Duration) -> Date {
        Date(epochMicroseconds: date.epochMicroseconds + duration.wholeMicroseconds)
    }

    /// The instant `duration` before `date`.
    public static func - (date: Date, duration: Duration) -> Date {
        Date(epochMicroseconds: date.epochMicroseconds - duration.wholeMicroseconds)
    }

    /// How long after `earlier` this instant is (negative when before it).
    public func duration(since earlier: Date) -> Duration {
        .microseconds(epochMicroseconds - earlier.epochMicroseconds)
    }
}
