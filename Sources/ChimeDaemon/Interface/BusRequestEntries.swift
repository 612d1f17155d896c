import ChimeCore
import ChimePlatform
import ChimeSystemd
import Foundation

/// A notification file's `[Notification]` and `[Trigger]` keys as the `content` and `trigger` of `Add` on the
/// application interface: repeatable keys as arrays of strings, the others as strings, each key once (its last
/// value), in the order of first appearance.
public enum BusRequestEntries {
    public typealias Entries = [(key: String, value: BusValue)]

    public static func of(_ unit: UnitFile) -> (content: Entries, trigger: Entries) {
        (entries(of: unit, in: "Notification"), entries(of: unit, in: "Trigger"))
    }

    /// The entries of the file at `path`; none when it cannot be read (or is larger than a notification file may be).
    public static func of(fileAt path: String) -> (content: Entries, trigger: Entries) {
        guard let data = try? PosixFileKindProbe().contents(of: path) else { return ([], []) }
        return of(UnitFile(parsing: data, path: path))
    }

    /// The `[Notification]` keys of a loaded notification, as `content` (a delivered request's, for
    /// `GetDelivered`): each key that differs from its default, written as in a file.
    public static func content(of notification: ScheduledNotification) -> Entries {
        var result: Entries = [("Title", .string(notification.title))]
        func add(_ key: String, _ value: String?) {
            if let value { result.append((key, .string(value))) }
        }
        add("Body", notification.body.isEmpty ? nil : notification.body)
        let level = notification.interruptionLevel
        add("Urgency", notification.urgency == level.defaultUrgency ? nil : notification.urgency.rawValue)
        add("InterruptionLevel", level == .active ? nil : level.rawValue)
        add("Icon", notification.icon)
        add("Category", notification.category)
        add("Sound", notification.sound)
        let style = notification.soundStyle
        add("Ring", SoundStyle.text(of: style.ring))
        add("Volume", style.volume.map { "\($0)%" })
        add("FadeIn", style.fadeIn == .zero ? nil : Timespan(style.fadeIn)?.description)
        add("Speak", style.speaks ? "yes" : nil)
        add("Language", style.language)
        add("Thread", notification.thread)
        if !notification.repeats.isEmpty {
            add(
                "Repeat",
                notification.repeats.map { Timespan($0).map { "\($0)".replacingOccurrences(of: " ", with: "") } ?? "" }
                    .joined(separator: " "))
        }
        add("DismissAcknowledges", notification.dismissAcknowledges ? nil : "no")
        add("Badge", notification.badge?.description)
        if notification.snooze != ScheduledNotification.defaultSnooze {
            let microseconds = notification.snooze.wholeMicroseconds
            add("SnoozeSec", microseconds % 1_000_000 == 0 ? "\(microseconds / 1_000_000)s" : "\(microseconds)us")
        }
        if !notification.actions.isEmpty {
            result.append(("Action", .strings(notification.actions.map { "\($0.key):\($0.label)" })))
        }
        if !notification.info.isEmpty {
            result.append(("Info", .strings(notification.info.map { "\($0.key)=\($0.value)" })))
        }
        if !notification.backends.isEmpty { result.append(("Deliver", .strings(notification.backends))) }
        return result
    }

    private static func entries(of unit: UnitFile, in section: String) -> Entries {
        let repeatable = Set(NotificationLoader.repeatableKeys.first { $0.section == section }?.keys ?? [])
        var result: Entries = []
        var seen = Set<String>()
        for entry in unit.sections.filter({ $0.name == section }).flatMap(\.entries)
        where seen.insert(entry.key).inserted {
            result.append(
                repeatable.contains(entry.key)
                    ? (entry.key, .strings(unit.values(for: entry.key, in: section).map(\.value)))
                    : (entry.key, .string(unit.lastValue(for: entry.key, in: section)?.value ?? "")))
        }
        return result
    }
}
