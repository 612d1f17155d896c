import ChimeCore
import Foundation

/// Where the deliveries held while quiet are kept across restarts: what was held is delivered when quiet ends,
/// whenever that is.
public protocol HeldDeliveryStore: Sendable {
    /// The deliveries kept, in the order they were held.
    func load() -> [Delivery]
    /// Replaces what is kept with `held`.
    func save(_ held: [Delivery])
}

/// `STATE_DIRECTORY/held.json`, rewritten atomically (and synced) when what is held changes:
/// `{"version":1,"held":[{…}]}` (`Delivery.storedJSON`). Unreadable or unwritable, it is reported, and chimed goes
/// on with what it holds in memory.
public final class FileHeldDeliveryStore: HeldDeliveryStore {
    public let path: String
    private let log: any EventLog

    public init(directory: String, log: any EventLog) {
        path = directory + "/held.json"
        self.log = log
    }

    public func load() -> [Delivery] {
        guard let data = FileManager.default.contents(atPath: path) else { return [] }
        guard let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
            object["version"] as? Int == 1, let list = object["held"] as? [[String: Any]]
        else {
            log.record(
                DaemonEvent(
                    .stateError, "\(path) is not a chime file of held deliveries; what it held is lost",
                    priority: .warning))
            return []
        }
        let held = list.compactMap(Delivery.init(stored:))
        if held.count < list.count {
            log.record(
                DaemonEvent(
                    .stateError, "\(path): \(list.count - held.count) held deliveries are unreadable and lost",
                    priority: .warning))
        }
        return held
    }

    public func save(_ held: [Delivery]) {
        guard !held.isEmpty || FileManager.default.fileExists(atPath: path) else { return }
        let text = JSONValue.object([("version", .number(1)), ("held", .array(held.map(\.storedJSON)))]).serialized
        do {
            try AtomicFile.write(text + "\n", to: path, mode: 0o600)
        } catch {
            log.record(
                DaemonEvent(
                    .stateError,
                    "Cannot keep the deliveries held while quiet in \(path) (\(error)); a restart "
                        + "would lose them", priority: .warning))
        }
    }
}
