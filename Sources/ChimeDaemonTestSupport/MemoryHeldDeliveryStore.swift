import ChimeCore
import ChimeDaemon
import Foundation

/// Held deliveries kept in memory, as a restart would find them in `held.json`.
public final class MemoryHeldDeliveryStore: HeldDeliveryStore, Sendable {
    private let kept = Locked<[Delivery]>([])

    public init() {}

    public func load() -> [Delivery] { kept.withLock { $0 } }

    public func save(_ held: [Delivery]) { kept.withLock { $0 = held } }

    /// The ids of what is kept, in order.
    public var ids: [String] { kept.withLock { $0.map(\.notification.id) } }
}
