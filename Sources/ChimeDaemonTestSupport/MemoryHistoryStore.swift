import ChimeCore
import ChimeDaemon
import Foundation

/// A state store that forgets everything when the process ends, for tests of the scheduler.
public final class MemoryHistoryStore: HistoryStore, Sendable {
    private struct State {
        var histories: [String: DeliveryHistory]
        var inFlight: [String: InterruptedDelivery] = [:]
        var interruptedAtLoad: [InterruptedDelivery] = []
        var flushCount = 0
    }

    private let state: Locked<State>

    public init(_ histories: [String: DeliveryHistory] = [:]) {
        state = Locked(State(histories: histories))
    }

    /// How often `flush()` was called.
    public var flushCount: Int { state.withLock { $0.flushCount } }

    public func load() -> (histories: [String: DeliveryHistory], problems: [String]) {
        state.withLock { state in
            state.interruptedAtLoad = state.inFlight.values.sorted { ($0.fireTime, $0.id) < ($1.fireTime, $1.id) }
            return (state.histories, [])
        }
    }

    public func interrupted() -> [InterruptedDelivery] { state.withLock { $0.interruptedAtLoad } }

    public func recordFirstSeen(_ ids: [String], at date: Date) {
        state.withLock { state in
            for id in ids { state.histories[id] = DeliveryHistory(firstSeen: date) }
        }
    }

    public func recordOccurrence(_ id: String, at occurrence: Date, missed: Int) {
        state.withLock { state in
            state.histories[id]?.lastOccurrence = occurrence
            let key = InterruptedDelivery.key(id, occurrence)
            state.inFlight[key] = InterruptedDelivery(
                id: id, fireTime: occurrence, missed: missed,
                finishedBackends: state.inFlight[key]?.finishedBackends ?? [])
        }
    }

    public func recordFollowUp(_ id: String, at occurrence: Date, _ followUp: InterruptedDelivery.FollowUp) {
        state.withLock { state in
            let key = InterruptedDelivery.key(id, occurrence, followUp)
            state.inFlight[key] = InterruptedDelivery(
                id: id, fireTime: occurrence, missed: 0,
                finishedBackends: state.inFlight[key]?.finishedBackends ?? [], followUp: followUp)
        }
    }

    public func recordBackendFinished(
        _ id: String, at occurrence: Date, backend: String, followUp: InterruptedDelivery.FollowUp?
    ) {
        _ = state.withLock {
            $0.inFlight[InterruptedDelivery.key(id, occurrence, followUp)]?.finishedBackends.insert(backend)
        }
    }

    public func recordSkipped(_ id: String, at occurrence: Date) {
        state.withLock { $0.histories[id]?.lastOccurrence = occurrence }
    }

    public func recordFinished(_ id: String, at occurrence: Date, followUp: InterruptedDelivery.FollowUp?) {
        _ = state.withLock { $0.inFlight.removeValue(forKey: InterruptedDelivery.key(id, occurrence, followUp)) }
    }

    public func flush() throws {
        state.withLock { $0.flushCount += 1 }
    }

    public func compact(_ histories: [String: DeliveryHistory]) throws {
        state.withLock { $0.histories = histories }
    }

    public var wantsCompaction: Bool { true }

    /// What a restart would find.
    public var stored: [String: DeliveryHistory] { state.withLock { $0.histories } }

    /// Deliveries handed off and not yet finished.
    public var deliveriesInFlight: [InterruptedDelivery] { state.withLock { Array($0.inFlight.values) } }
}
