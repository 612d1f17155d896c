import ChimeCore
import ChimeDaemon
import Foundation

/// A state store that forgets everything when the process ends, for tests of the scheduler.
public final class MemoryHistoryStore: HistoryStore, @unchecked Sendable {
    private let lock = NSLock()
    private var histories: [String: DeliveryHistory]
    private var inFlight: [String: InterruptedDelivery] = [:]
    private var interruptedAtLoad: [InterruptedDelivery] = []
    public private(set) var flushCount = 0

    public init(_ histories: [String: DeliveryHistory] = [:]) {
        self.histories = histories
    }

    public func load() -> (histories: [String: DeliveryHistory], problems: [String]) {
        lock.withLock {
            interruptedAtLoad = inFlight.values.sorted { ($0.fireTime, $0.id) < ($1.fireTime, $1.id) }
            return (histories, [])
        }
    }

    public func interrupted() -> [InterruptedDelivery] { lock.withLock { interruptedAtLoad } }

    public func recordFirstSeen(_ ids: [String], at date: Date) {
        lock.withLock {
            for id in ids { histories[id] = DeliveryHistory(firstSeen: date) }
        }
    }

    public func recordOccurrence(_ id: String, at occurrence: Date, missed: Int) {
        lock.withLock {
            histories[id]?.lastOccurrence = occurrence
            inFlight[InterruptedDelivery.key(id, occurrence)] = InterruptedDelivery(
                id: id, fireTime: occurrence, missed: missed)
        }
    }

    public func recordSkipped(_ id: String, at occurrence: Date) {
        lock.withLock { histories[id]?.lastOccurrence = occurrence }
    }

    public func recordFinished(_ id: String, at occurrence: Date) {
        _ = lock.withLock { inFlight.removeValue(forKey: InterruptedDelivery.key(id, occurrence)) }
    }

    public func flush() throws {
        lock.withLock { flushCount += 1 }
    }

    public func compact(_ histories: [String: DeliveryHistory]) throws {
        lock.withLock { self.histories = histories }
    }

    public var wantsCompaction: Bool { true }

    /// What a restart would find.
    public var stored: [String: DeliveryHistory] { lock.withLock { histories } }

    /// Deliveries handed off and not yet finished.
    public var deliveriesInFlight: [InterruptedDelivery] { lock.withLock { Array(inFlight.values) } }
}
