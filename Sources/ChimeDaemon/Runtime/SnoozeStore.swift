import ChimeCore
import Foundation

/// Where the snoozes the user asked for are kept across restarts: a snooze lost to a restart is a reminder lost.
public protocol SnoozeStore: Sendable {
    /// The snoozes kept.
    func load() -> [Snooze]
    /// Replaces what is kept with `snoozes`.
    func save(_ snoozes: [Snooze])
}

/// `STATE_DIRECTORY/snoozes.json` (a `StateListFile`): `{"version":1,"snoozes":[{"id":…,"due_usec":…}]}`.
public final class FileSnoozeStore: SnoozeStore {
    private let file: StateListFile

    public var path: String { file.path }

    public init(directory: String, log: any EventLog) {
        file = StateListFile(
            path: directory + "/snoozes.json", member: "snoozes",
            unreadable: "is not a chime snooze file; the snoozes in it are lost", unwritable: "Cannot keep the snoozes",
            log: log)
    }

    public func load() -> [Snooze] {
        file.load().compactMap { item in
            guard let id = item["id"] as? String, let due = (item["due_usec"] as? NSNumber)?.int64Value else {
                return nil
            }
            return Snooze(id: id, due: Date(epochMicroseconds: due))
        }
    }

    public func save(_ snoozes: [Snooze]) {
        file.save(snoozes.map { .object([("id", .string($0.id)), ("due_usec", .number($0.due.epochMicroseconds))]) })
    }
}
