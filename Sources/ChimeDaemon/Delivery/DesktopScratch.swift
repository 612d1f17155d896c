// Scratch declarations of what the lead's configuration layer defines on main; deleted when main is merged.
import Foundation

public struct DesktopSettings: Sendable, Equatable {
    public var name = "desktop"
    public var appName = "chime"
    public var desktopEntry = "chime"
    public var expire: Duration? = nil
    public var fallback: String? = "journal"
    public init() {}
}

public protocol NotificationResponding: Sendable {
    func actionInvoked(_ key: String, delivery: Delivery, backend: String)
    func closed(_ delivery: Delivery, reason: UInt32, backend: String)
}

public struct BackendContext: Sendable {
    public var log: any EventLog
    public var clock: any WallClock
    public var responder: any NotificationResponding
    public var environment: [String: String]
    public init(
        log: any EventLog, clock: any WallClock, responder: any NotificationResponding, environment: [String: String]
    ) {
        self.log = log
        self.clock = clock
        self.responder = responder
        self.environment = environment
    }
}

public struct BackendUnavailable: Error {
    public var reason: String
    public var isNew: Bool
    public init(reason: String, isNew: Bool) {
        self.reason = reason
        self.isNew = isNew
    }
}
