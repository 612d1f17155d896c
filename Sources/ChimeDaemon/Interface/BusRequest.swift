import ChimeCore
import ChimeSystemd
import Foundation

/// An `Add` call's request written as the notification file chimed stores and validates as it does any file:
/// `content` holds keys of `[Notification]`, `trigger` keys of `[Trigger]`, their values written as in a file.
///
/// `appID` is a desktop-file id (`ApplicationInterface` refuses any other before this). A bus caller is told, not
/// warned: an unknown key, a value of the wrong type, `ExecAction` (nothing a caller sends
/// becomes a command chimed runs) and anything the loader would warn about are errors, and nothing is stored.
struct BusRequest: Sendable {
    /// The notification file.
    let text: String
    /// The loaded notification, under its schedule id `APP_ID:ID`.
    let notification: ScheduledNotification

    struct Invalid: Error, Equatable, CustomStringConvertible {
        let description: String
    }

    init(
        appID: String, id: String, content: [(key: String, value: BusValue)],
        trigger: [(key: String, value: BusValue)], loader: NotificationLoader
    ) throws(Invalid) {
        if let refusal = ApplicationRequests.idRefusal(id, appID: appID) { throw Invalid(description: refusal) }
        var writer = UnitFileWriter()
        try Self.write(content, section: "Notification", to: &writer)
        try Self.write(trigger, section: "Trigger", to: &writer)
        text = writer.text
        let path = "\(appID)/\(id)"
        let result = loader.load(
            UnitFile(parsing: text, path: path), id: ApplicationRequests.scheduleID(appID: appID, id: id), path: path)
        guard result.diagnostics.isEmpty, let notification = result.notification else {
            throw Invalid(description: result.diagnostics.map(\.message).joined(separator: " "))
        }
        self.notification = notification
    }

    private static func write(
        _ entries: [(key: String, value: BusValue)], section: String, to writer: inout UnitFileWriter
    ) throws(Invalid) {
        guard !entries.isEmpty else { return }
        let known = NotificationLoader.knownKeys[section] ?? []
        let repeatable = Set(NotificationLoader.repeatableKeys.first { $0.section == section }?.keys ?? [])
        writer.section(section)
        for (key, value) in entries {
            guard key != "ExecAction" else {
                throw Invalid(
                    description: "ExecAction is not taken over the bus: an application learns the user's answer "
                        + "by being activated (ActionInvoked).")
            }
            guard known.contains(key) else {
                throw Invalid(
                    description: "Unknown key '\(key)' in [\(section)]."
                        + Suggestion.didYouMean(key, among: known.sorted()))
            }
            for text in try values(of: value, key: key, section: section, repeatable: repeatable.contains(key)) {
                do {
                    if key == "Body" {
                        try writer.assign(key, foldingLines: text)
                    } else {
                        try writer.assign(key, text)
                    }
                } catch {
                    throw Invalid(description: "Invalid \(key)=: \(error)")
                }
            }
        }
    }

    /// The texts `value` stands for, as `key=` lines of a file.
    private static func values(
        of value: BusValue, key: String, section: String, repeatable: Bool
    ) throws(Invalid) -> [String] {
        switch (value, key) {
        case (.string(let text), _): return [text]
        case (.strings(let texts), _) where repeatable:
            // Refused before a value is written: a million actions cost no more than counting them.
            guard texts.count <= InputLimits.maximumRepeats else {
                throw Invalid(
                    description: "\(InputLimits.grouped(texts.count)) values of \(key) in [\(section)]; at most "
                        + "\(InputLimits.grouped(InputLimits.maximumRepeats)) are taken.")
            }
            return texts
        case (.uint32(let number), "Count"): return [String(number)]
        case (.byte(let number), "Count"): return [String(number)]
        case (.int32(let number), "Count") where number >= 0: return [String(number)]
        case (.int64(let number), "Count") where number >= 0: return [String(number)]
        case (.boolean(let flag), _) where NotificationLoader.booleanKeys.contains(key): return [flag ? "yes" : "no"]
        default:
            let wanted =
                repeatable
                ? "a string or an array of strings (s, as)"
                : key == "Count"
                    ? "a number that is not negative or a string (y, u, i, x, s)"
                    : NotificationLoader.booleanKeys.contains(key) ? "a boolean or a string (b, s)" : "a string (s)"
            throw Invalid(description: "Wrong type for \(key) in [\(section)]: \(value.signature), expected \(wanted).")
        }
    }
}
