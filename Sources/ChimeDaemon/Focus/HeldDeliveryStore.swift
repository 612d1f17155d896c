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

/// `STATE_DIRECTORY/held.json` (a `StateListFile`): `{"version":1,"held":[{…}]}` (`Delivery.storedJSON`).
public final class FileHeldDeliveryStore: HeldDeliveryStore {
    private let file: StateListFile

    public var path: String { file.path }

    public init(directory: String, log: any EventLog) {
        file = StateListFile(
            path: directory + "/held.json", member: "held",
            unreadable: "is not a chime file of held deliveries; what it held is lost",
            unwritable: "Cannot keep the deliveries held while quiet", log: log)
    }

    public func load() -> [Delivery] {
        let list = file.load()
        let held = list.compactMap(Delivery.init(stored:))
        if held.count < list.count {
            file.log.record(
                DaemonEvent(
                    .stateError, "\(path): \(list.count - held.count) held deliveries are unreadable and lost",
                    priority: .warning))
        }
        return held
    }

    public func save(_ held: [Delivery]) {
        file.save(held.map(\.storedJSON), skippingEmpty: true)
    }
}
