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
