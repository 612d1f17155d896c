// Scratch: what the lead's chimed.conf layer declares on main; deleted when main is merged.
import Foundation

public struct CommandSettings: Sendable, Equatable {
    public var name = "command"
    public var argv: [String] = []
    public var timeout: Duration = .seconds(30)
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
