import ChimeCore
import ChimePlatform
import Foundation

/// A small state file that chimed rewrites whole at each change, atomically and synced: `{"version":1,"MEMBER":
/// […]}` (snoozes, repeats, held deliveries: a user's doing, a few at a time). One that cannot be read or written is
/// reported, and chimed goes on with what it has in memory.
struct StateListFile: Sendable {
    let path: String
    /// The name of the array in the file.
    let member: String
    /// Said of a file that is not such a list ("… is not a chime snooze file; the snoozes in it are lost").
    let unreadable: String
    /// Said when the file cannot be written, after the path and the error.
    let unwritable: String
    let log: any EventLog

    /// The elements of the list; none (reported) when the file is not such a list, none when there is no file.
    func load() -> [[String: Any]] {
        guard let data = FileManager.default.contents(atPath: path) else { return [] }
        guard let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
            object["version"] as? Int == 1, let list = object[member] as? [[String: Any]]
        else {
            log.record(DaemonEvent(.stateError, "\(path) \(unreadable)", priority: .warning))
            return []
        }
        return list
    }

    /// Replaces the list with `elements`; with `skippingEmpty`, an empty list does not create a missing file.
    func save(_ elements: [JSONValue], skippingEmpty: Bool = false) {
        guard !(skippingEmpty && elements.isEmpty && !FileManager.default.fileExists(atPath: path)) else { return }
        let text = JSONValue.object([("version", .number(1)), (member, .array(elements))]).serialized
        do {
            try AtomicFile.write(text + "\n", to: path, mode: 0o600)
        } catch {
            log.record(
                DaemonEvent(
                    .stateError, "\(unwritable) in \(path) (\(error)); a restart would lose them", priority: .warning))
        }
    }
}
