import ChimeCore
import Foundation

/// Where the repeats of `Repeat=` wait across restarts: a reminder that stopped repeating at a restart would be
/// acknowledged by nobody.
public protocol RepeatStore: Sendable {
    /// The repeats kept.
    func load() -> [PendingRepeat]
    /// Replaces what is kept.
    func save(_ repeats: [PendingRepeat])
}

/// `STATE_DIRECTORY/repeats.json` (a `StateListFile`):
/// `{"version":1,"repeats":[{"id":…,"due_usec":…,"number":…,"fire_usec":…}]}`.
public final class FileRepeatStore: RepeatStore {
    private let file: StateListFile

    public var path: String { file.path }

    public init(directory: String, log: any EventLog) {
        file = StateListFile(
            path: directory + "/repeats.json", member: "repeats",
            unreadable: "is not a chime file of repeats; the repeats in it are lost",
            unwritable: "Cannot keep the repeats", log: log)
    }

    public func load() -> [PendingRepeat] {
        file.load().compactMap { item in
            guard let id = item["id"] as? String, let due = (item["due_usec"] as? NSNumber)?.int64Value,
                let number = (item["number"] as? NSNumber)?.intValue, number > 0,
                let fireTime = (item["fire_usec"] as? NSNumber)?.int64Value
            else { return nil }
            return PendingRepeat(
                id: id, due: Date(epochMicroseconds: due), number: number, fireTime: Date(epochMicroseconds: fireTime))
        }
    }

    public func save(_ repeats: [PendingRepeat]) {
        file.save(
            repeats.map {
                .object([
                    ("id", .string($0.id)), ("due_usec", .number($0.due.epochMicroseconds)),
                    ("number", .number(Int64($0.number))), ("fire_usec", .number($0.fireTime.epochMicroseconds)),
                ])
            }, skippingEmpty: true)
    }
}
