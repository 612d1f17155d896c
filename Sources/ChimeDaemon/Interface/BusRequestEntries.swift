import ChimeCore
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

    /// The entries of the file at `path`; none when it cannot be read.
    public static func of(fileAt path: String) -> (content: Entries, trigger: Entries) {
        guard let data = FileManager.default.contents(atPath: path) else { return ([], []) }
        return of(UnitFile(parsing: data, path: path))
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
