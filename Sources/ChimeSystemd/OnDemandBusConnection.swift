import ChimeCore

/// A connection to one bus, made at the first use and made again when it has closed (the bus restarted, or
/// dropped it): for a daemon's occasional calls, such as to logind or to another instance.
public final class OnDemandBusConnection: Sendable {
    private let address: String
    private let label: String
    private let current = Locked<BusConnection?>(nil)

    public init(address: String, label: String) {
        self.address = address
        self.label = label
    }

    /// The open connection, or a new one. Not to be called on a connection's queue (`isOpen` waits for it).
    public func connection() throws -> BusConnection {
        // isOpen waits for the connection's queue: not under the lock.
        if let existing = current.withLock({ $0 }), existing.isOpen { return existing }
        let made = try BusConnection(address: address, label: label)
        current.withLock { $0 = made }
        return made
    }
}
