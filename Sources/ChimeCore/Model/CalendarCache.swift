import Foundation

/// The `OnCalendar=` events already parsed during one load, so that notifications with the same events share one
/// copy: a generator printing a million reminders at a few hundred distinct times parses each time once and keeps
/// it once. Thread-safe (a load validates on all cores); it holds at most `capacity` distinct lists, so that a
/// schedule whose events are all different costs no more than without it.
public final class CalendarCache: @unchecked Sendable {
    private let lock = NSLock()
    private var calendars: [String: [CalendarSpec]] = [:]
    private let capacity: Int

    public init(capacity: Int = 4_096) {
        self.capacity = capacity
    }

    /// The key of a notification's events: their texts and the zone they are read in.
    static func key(_ texts: [String], zone: ZoneRules) -> String {
        ([zone.name] + texts).joined(separator: "\u{0}")
    }

    func calendars(for key: String) -> [CalendarSpec]? {
        lock.withLock { calendars[key] }
    }

    func keep(_ list: [CalendarSpec], for key: String) {
        lock.withLock {
            if calendars.count < capacity { calendars[key] = list }
        }
    }
}
