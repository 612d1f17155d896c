import ChimeDaemon
import Foundation

// Scratch: the lead's declarations from the chimed.conf work, until they land on main. Deleted at that merge.

public struct WebhookSettings: Sendable, Equatable {
    public struct Header: Sendable, Equatable {
        public var name: String
        public var value: String

        public init(name: String, value: String) {
            self.name = name
            self.value = value
        }
    }

    public var name = "webhook"
    public var url: String? = nil
    public var headers: [Header] = []
    public var timeout: Duration = .seconds(10)
    public var retries = 3
    public var retryDelay: Duration = .seconds(1)
    public var retryMaxDelay: Duration = .seconds(60)

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
