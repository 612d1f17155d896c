import ChimeCore
import ChimeDaemon
import Foundation

/// A dispatcher that records each delivery with the clock's time of hand-off, instead of delivering.
public final class RecordingDispatcher: DeliveryDispatching, @unchecked Sendable {
    public struct Record: Sendable {
        public var id: String
        public var fireTime: Date
        public var handedOffAt: Date
        public var missedCount: Int
    }

    private let lock = NSLock()
    private let clock: any WallClock
    private var list: [Record] = []

    public init(clock: any WallClock) {
        self.clock = clock
    }

    public func dispatch(_ delivery: Delivery, finished: @escaping @Sendable () -> Void) {
        defer { finished() }
        let record = Record(
            id: delivery.notification.id, fireTime: delivery.fireTime, handedOffAt: clock.now(),
            missedCount: delivery.missedCount)
        lock.lock()
        list.append(record)
        lock.unlock()
    }

    public var records: [Record] {
        lock.lock()
        defer { lock.unlock() }
        return list
    }
}

/// An event log that keeps the events, for assertions.
public final class RecordingEventLog: EventLog, @unchecked Sendable {
    private let lock = NSLock()
    private var list: [DaemonEvent] = []

    public init() {}

    public func record(_ event: DaemonEvent) {
        lock.lock()
        list.append(event)
        lock.unlock()
    }

    public var events: [DaemonEvent] {
        lock.lock()
        defer { lock.unlock() }
        return list
    }

    public func events(_ kind: DaemonEvent.Kind) -> [DaemonEvent] { events.filter { $0.kind == kind } }
}

/// The spy of the iOS practice: a backend that records what it was asked to deliver.
public final class RecordingBackend: DeliveryBackend, @unchecked Sendable {
    public let name: String
    private let lock = NSLock()
    private var list: [(Delivery, Date)] = []
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
        lock.withLock { list.append((delivery, deliveredAt)) }
    }

    public var deliveries: [(delivery: Delivery, deliveredAt: Date)] {
        lock.lock()
        defer { lock.unlock() }
        return list
    }
}

/// A responder that records the answers backends report, for assertions.
public final class RecordingResponder: NotificationResponding, @unchecked Sendable {
    public enum Answer: Sendable, Equatable {
        case action(key: String, id: String, backend: String)
        case closed(id: String, reason: UInt32, backend: String)
    }

    private let lock = NSLock()
    private var list: [Answer] = []

    public init() {}

    public func actionInvoked(_ key: String, delivery: Delivery, backend: String) {
        lock.withLock { list.append(.action(key: key, id: delivery.notification.id, backend: backend)) }
    }

    public func closed(_ delivery: Delivery, reason: UInt32, backend: String) {
        lock.withLock { list.append(.closed(id: delivery.notification.id, reason: reason, backend: backend)) }
    }

    public var answers: [Answer] { lock.withLock { list } }
}
