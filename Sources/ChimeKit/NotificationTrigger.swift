import ChimeCore
import ChimeSystemd
import Foundation

/// When a notification fires, as `UNNotificationTrigger` says it: the keys of a notification file's `[Trigger]`
/// section, each value written as in a file (systemd.time(7) syntax).
public struct NotificationTrigger: Sendable, Equatable {
    /// The keys and their values, in order; a repeatable key (`At`, `OnCalendar`, `RRule`, `RDate`, `ExDate`) may
    /// have several.
    public var entries: [(key: String, values: [String])]

    public init(entries: [(key: String, values: [String])]) {
        self.entries = entries
    }

    /// Once, at `date` (`At=@EPOCH`, to the microsecond): `UNCalendarNotificationTrigger` for one date.
    public static func date(_ date: Date, persistent: Bool = false) -> NotificationTrigger {
        let microseconds = Int64((date.timeIntervalSince1970 * 1_000_000).rounded())
        let seconds = microseconds / 1_000_000
        let fraction = microseconds % 1_000_000
        let stamp = fraction == 0 ? "@\(seconds)" : "@\(seconds).\(String(format: "%06lld", fraction))"
        return NotificationTrigger(entries: [("At", [stamp])]).persistent(persistent)
    }

    /// At the calendar times `events` describe (`OnCalendar=`, e.g. `Mon..Fri 07:00`), in `timeZone` or the
    /// system's: `UNCalendarNotificationTrigger(dateMatching:repeats: true)`.
    public static func calendar(_ events: [String], timeZone: String? = nil, persistent: Bool = false)
        -> NotificationTrigger
    {
        var entries: [(key: String, values: [String])] = [("OnCalendar", events)]
        if let timeZone { entries.append(("TimeZone", [timeZone])) }
        return NotificationTrigger(entries: entries).persistent(persistent)
    }

    /// Every `interval` from now (`Every=`), at most `count` times: `UNTimeIntervalNotificationTrigger` with
    /// `repeats: true`. For once after an interval, use `date(Date() + interval)`.
    public static func every(_ interval: Duration, count: Int? = nil, persistent: Bool = false) -> NotificationTrigger {
        var entries: [(key: String, values: [String])] = [("Every", ["\(interval.wholeMicroseconds)us"])]
        if let count { entries.append(("Count", [String(count)])) }
        return NotificationTrigger(entries: entries).persistent(persistent)
    }

    /// On RFC 5545 recurrence rules (`RRule=`, e.g. `FREQ=MONTHLY;BYDAY=-1FR`) started at `start` (DTSTART, a
    /// timestamp read in `timeZone`; without it, when chimed first sees the request), with times added (`RDate=`)
    /// and taken out (`ExDate=`, a date such as `20261225` takes the whole day): what a calendar event repeats by.
    public static func recurrence(
        _ rules: [String], start: String? = nil, timeZone: String? = nil, adding dates: [String] = [],
        excluding exclusions: [String] = [], persistent: Bool = false
    ) -> NotificationTrigger {
        var entries: [(key: String, values: [String])] = []
        for (key, values) in [("RRule", rules), ("RDate", dates), ("ExDate", exclusions)] where !values.isEmpty {
            entries.append((key, values))
        }
        if let start { entries.append(("From", [start])) }
        if let timeZone { entries.append(("TimeZone", [timeZone])) }
        return NotificationTrigger(entries: entries).persistent(persistent)
    }

    /// The same trigger with `Persistent=`: whether an occurrence missed while the machine was off is delivered
    /// late, once.
    public func persistent(_ flag: Bool) -> NotificationTrigger {
        guard flag else { return self }
        return NotificationTrigger(entries: entries + [("Persistent", ["yes"])])
    }

    /// The `trigger` argument of `Add`.
    var busEntries: [(key: String, value: BusValue)] {
        let repeatable = Set(NotificationLoader.repeatableKeys.first { $0.section == "Trigger" }?.keys ?? [])
        return entries.map { entry in
            (entry.key, repeatable.contains(entry.key) ? .strings(entry.values) : .string(entry.values.last ?? ""))
        }
    }

    /// The trigger `GetPending` returns.
    init(busEntries: [(key: String, value: BusValue)]) {
        entries = busEntries.map { entry in
            switch entry.value {
            case .strings(let values): return (entry.key, values)
            case .string(let value): return (entry.key, [value])
            default: return (entry.key, [])
            }
        }
    }

    public static func == (a: NotificationTrigger, b: NotificationTrigger) -> Bool {
        a.entries.map(\.key) == b.entries.map(\.key) && a.entries.map(\.values) == b.entries.map(\.values)
    }
}
