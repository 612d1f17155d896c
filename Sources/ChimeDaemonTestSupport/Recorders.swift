import ChimeCore
import ChimeDaemon
import Foundation

/// A dispatcher that records each delivery with the clock's time of hand-off, instead of delivering.
public final class RecordingDispatcher: DeliveryDispatching, Sendable {
    public struct Record: Sendable {
        public var id: String
        public var title: String
        public var body: String
        public var fireTime: Date
        public var handedOffAt: Date
        public var missedCount: Int
        public var repeatNumber: Int
        public var isSnoozed: Bool
        public var finishedBackends: Set<String>
    }

    private let clock: any WallClock
    private let list = Locked<[Record]>([])

    public init(clock: any WallClock) {
        self.clock = clock
    }

    public func dispatch(
        _ delivery: Delivery, backendFinished: @escaping @Sendable (String) -> Void,
        finished: @escaping @Sendable () -> Void
    ) {
        defer { finished() }
        let record = Record(
            id: delivery.notification.id, title: delivery.notification.title, body: delivery.notification.body,
            fireTime: delivery.fireTime,
            handedOffAt: clock.now(),
            missedCount: delivery.missedCount, repeatNumber: delivery.repeatNumber, isSnoozed: delivery.isSnoozed,
            finishedBackends: delivery.finishedBackends)
        list.withLock { $0.append(record) }
    }

    public var records: [Record] { list.withLock { $0 } }
}

/// An event log that keeps the events, for assertions.
public final class RecordingEventLog: EventLog, Sendable {
    private let list = Locked<[DaemonEvent]>([])

    public init() {}

    public func record(_ event: DaemonEvent) {
        list.withLock { $0.append(event) }
    }

    public var events: [DaemonEvent] { list.withLock { $0 } }

    public func events(_ kind: DaemonEvent.Kind) -> [DaemonEvent] { events.filter { $0.kind == kind } }
}

/// The spy of the iOS practice: a backend that records what it was asked to deliver.
public final class RecordingBackend: DeliveryBackend, Sendable {
    public let name: String
    private let list = Locked<[(Delivery, Date)]>([])
    private let delay: Duration
    private let failure: (any Error)?

    public init(name: String = "spy", delay: Duration = .zero, failure: (any Error)? = nil) {
        self.name = name
        self.delay = delay
        self.failure = failure
    }

    public func deliver(_ delivery: Delivery, deliveredAt: Date) async throws {
        if delay > .zero { try await Task.sleep(for: delay) }
        if let failure { throw failure }
        list.withLock { $0.append((delivery, deliveredAt)) }
    }

    public var deliveries: [(delivery: Delivery, deliveredAt: Date)] { list.withLock { $0 } }
}

/// A responder that records the answers backends report, for assertions.
public final class RecordingResponder: NotificationResponding, Sendable {
    public enum Answer: Sendable, Equatable {
        case action(key: String, id: String, backend: String)
        case closed(id: String, reason: UInt32, backend: String)
    }

    private let list = Locked<[Answer]>([])

    public init() {}

    public func actionInvoked(_ key: String, delivery: Delivery, backend: String) {
        list.withLock { $0.append(.action(key: key, id: delivery.notification.id, backend: backend)) }
    }

    public func closed(_ delivery: Delivery, reason: UInt32, backend: String) {
        list.withLock { $0.append(.closed(id: delivery.notification.id, reason: reason, backend: backend)) }
    }

    public var answers: [Answer] { list.withLock { $0 } }
}
