import ChimeCore
import Foundation

/// Where the snoozes the user asked for are kept across restarts: a snooze lost to a restart is a reminder lost.
public protocol SnoozeStore: Sendable {
    /// The snoozes kept, as instants in microseconds since the epoch and notification ids.
    func load() -> [(due: Int64, id: String)]
    /// Replaces what is kept with `snoozes`.
    func save(_ snoozes: [(due: Int64, id: String)])
}

/// `STATE_DIRECTORY/snoozes.json`, rewritten atomically (and synced) at each change: `{"version":1,"snoozes":
/// [{"id":…,"due_usec":…}]}`. Snoozes are a user's doing, a few at a time, so a whole rewrite is cheap. A file that
/// cannot be read or written is reported, and chimed goes on with the snoozes it has in memory.
public final class FileSnoozeStore: SnoozeStore {
    public let path: String
    private let log: any EventLog

    public init(directory: String, log: any EventLog) {
        path = directory + "/snoozes.json"
        self.log = log
    }

    public func load() -> [(due: Int64, id: String)] {
        guard let data = FileManager.default.contents(atPath: path) else { return [] }
        guard let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
            object["version"] as? Int == 1, let list = object["snoozes"] as? [[String: Any]]
        else {
            log.record(
                DaemonEvent(
                    .stateError, "\(path) is not a chime snooze file; the snoozes in it are lost", priority: .warning))
            return []
        }
        return list.compactMap { item in
            guard let id = item["id"] as? String, let due = (item["due_usec"] as? NSNumber)?.int64Value else {
                return nil
            }
            return (due, id)
        }
    }

    public func save(_ snoozes: [(due: Int64, id: String)]) {
        let text = JSONValue.object([
            ("version", .number(1)),
            ("snoozes", .array(snoozes.map { .object([("id", .string($0.id)), ("due_usec", .number($0.due))]) })),
        ]).serialized
        do {
            try AtomicFile.write(text + "\n", to: path, mode: 0o600)
        } catch {
            log.record(
                DaemonEvent(
                    .stateError, "Cannot keep the snoozes in \(path) (\(error)); a restart would lose them",
                    priority: .warning))
        }
    }
}
