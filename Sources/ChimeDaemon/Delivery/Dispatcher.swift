import ChimeCore
import Foundation

/// Fans each due occurrence out to its backends, concurrently and each with a timeout, so that a slow or failing
/// backend never delays another one or the scheduler's timer; at most `DeliverySlots.perBackend` deliveries to one
/// backend are in flight, the rest wait their turn.
///
/// Each outcome is logged as its own event with `CHIME_BACKEND=`, except by backends whose delivery is itself
/// the journal entry (`recordsOwnDelivery`).
public final class Dispatcher: DeliveryDispatching, Sendable {
    /// The backends by name and the defaults, replaced as a whole when chimed.conf changes.
    private let configured: Locked<(backends: [String: any DeliveryBackend], defaultBackends: [String])>
    private let timeout: Duration
    private let clock: any WallClock
    private let log: any EventLog
    private let inFlight = DispatchGroup()
    /// The deliveries in flight to each backend, bounded.
    let slots: DeliverySlots

    public init(
        backends: [any DeliveryBackend], defaultBackends: [String], timeout: Duration = .seconds(30),
        clock: any WallClock, log: any EventLog, inFlightPerBackend: Int = DeliverySlots.defaultPerBackend
    ) {
        slots = DeliverySlots(perBackend: inFlightPerBackend)
        configured = Locked((Dictionary(backends.map { ($0.name, $0) }) { first, _ in first }, defaultBackends))
        self.timeout = timeout
        self.clock = clock
        self.log = log
    }

    /// Replaces the backends and the default (after a reload of chimed.conf); deliveries in flight finish with
    /// the backends they started with.
    public func reconfigure(backends: [any DeliveryBackend], defaultBackends: [String]) {
        let byName = Dictionary(backends.map { ($0.name, $0) }) { first, _ in first }
        configured.withLock { $0 = (byName, defaultBackends) }
    }

    /// The backends by name, as they are now.
    public var currentBackends: [String: any DeliveryBackend] { configured.withLock { $0.backends } }

    /// The backend names a notification goes to: its `Deliver=`, or the default.
    public func backendNames(for notification: ScheduledNotification) -> [String] {
        notification.backends.isEmpty ? configured.withLock { $0.defaultBackends } : notification.backends
    }

    /// Delivers to the notification's backends but those that finished it in an earlier run
    /// (`Delivery.finishedBackends`).
    public func dispatch(
        _ delivery: Delivery, backendFinished: @escaping @Sendable (String) -> Void,
        finished: @escaping @Sendable () -> Void
    ) {
        let group = DispatchGroup()
        let backends = currentBackends
        var names: [String] = []
        for name in backendNames(for: delivery.notification) where !delivery.finishedBackends.contains(name) {
            if backends[name] == nil {
                log.record(Self.failure(delivery, backend: name, reason: "no backend named '\(name)'"))
            } else {
                names.append(name)
            }
        }
        let atWork = Locked(names.count)
        for name in names {
            guard let backend = backends[name] else { continue }
            let handOff = clock.now()
            inFlight.enter()
            group.enter()
            slots.start(name) { [self] in
                defer {
                    group.leave()
                    inFlight.leave()
                }
                await run(backend, delivery, handOff: handOff, backends: backends)
                if atWork.withLock({ count in
                    count -= 1
                    return count
                }) > 0 {
                    backendFinished(name)
                }
            }
        }
        group.notify(queue: DaemonExecutor.shared.queue, execute: finished)
    }

    /// Waits up to `limit` for deliveries in flight (at shutdown). Returns whether all finished.
    public func drain(within limit: Duration) -> Bool {
        let deadline = DispatchTime.now() + limit.dispatchInterval
        return inFlight.wait(timeout: deadline) == .success
    }

    private enum Outcome: Sendable {
        case delivered
        case failed(String)
        case unavailable(BackendUnavailable)
    }

    /// Delivers through `backend` within its timeout; when it cannot reach its peer at all, through its fallback.
    private func run(
        _ backend: any DeliveryBackend, _ delivery: Delivery, handOff: Date, backends: [String: any DeliveryBackend]
    ) async {
        switch await attempt(backend, delivery, handOff: handOff) {
        case .delivered:
            if !(backend is any RecordsOwnDelivery) {
                log.record(Self.delivered(delivery, backend: backend.name, at: handOff))
            }
        case .failed(let reason):
            log.record(Self.failure(delivery, backend: backend.name, reason: reason))
        case .unavailable(let unavailable):
            let fallback = backend.fallback.flatMap { backends[$0] }
            if unavailable.isNew {
                let instead = fallback.map { "; delivering to \($0.name) instead until it is back" } ?? ""
                log.record(Self.failure(delivery, backend: backend.name, reason: unavailable.reason + instead))
            }
            guard let fallback, fallback.name != backend.name else { return }
            await run(fallback, delivery, handOff: handOff, backends: [:])
        }
    }

    private func attempt(_ backend: any DeliveryBackend, _ delivery: Delivery, handOff: Date) async -> Outcome {
        let timeout = backend.timeout ?? self.timeout
        return await withTaskGroup(of: Outcome?.self) { group in
            group.addTask {
                do {
                    try await backend.deliver(delivery, deliveredAt: handOff)
                    return .delivered
                } catch let unavailable as BackendUnavailable {
                    return .unavailable(unavailable)
                } catch {
                    return .failed("\(error)")
                }
            }
            group.addTask {
                await DaemonExecutor.shared.sleep(for: timeout)
                return Task.isCancelled ? nil : .failed("timed out after \(timeout)")
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            return first ?? .failed("cancelled")
        }
    }

    /// The fields every delivery event carries; `CHIME_BACKEND=` when it is about one backend.
    public static func fields(of delivery: Delivery, backend: String?) -> [(name: String, value: String)] {
        let notification = delivery.notification
        var fields: [(name: String, value: String)] = [
            ("CHIME_ID", notification.id), ("CHIME_TITLE", notification.title),
            ("CHIME_FIRE_TIME", Timestamp.iso8601(delivery.fireTime, fraction: .microseconds)),
        ]
        if let backend { fields.append(("CHIME_BACKEND", backend)) }
        if !notification.body.isEmpty { fields.append(("CHIME_BODY", notification.body)) }
        if notification.interruptionLevel != .active {
            fields.append(("CHIME_INTERRUPTION_LEVEL", notification.interruptionLevel.rawValue))
        }
        if let thread = notification.thread { fields.append(("CHIME_THREAD", thread)) }
        if delivery.missedCount > 0 { fields.append(("CHIME_MISSED", String(delivery.missedCount))) }
        if delivery.isSnoozed { fields.append(("CHIME_SNOOZED", "1")) }
        if delivery.repeatNumber > 0 { fields.append(("CHIME_REPEAT", String(delivery.repeatNumber))) }
        if let badge = delivery.badge { fields.append(("CHIME_BADGE", String(badge))) }
        for (key, value) in notification.info { fields.append(("CHIME_INFO_" + key.uppercased(), value)) }
        return fields
    }

    static func delivered(_ delivery: Delivery, backend: String, at handOff: Date) -> DaemonEvent {
        let kind: DaemonEvent.Kind = delivery.missedCount > 0 ? .caughtUp : .delivered
        return DaemonEvent(
            kind, "\(delivery.notification.id): \(delivery.notification.title) (delivered to \(backend))",
            fields: fields(of: delivery, backend: backend)
                + [("CHIME_DELIVERED_AT", Timestamp.iso8601(handOff, fraction: .microseconds))])
    }

    static func failure(_ delivery: Delivery, backend: String, reason: String) -> DaemonEvent {
        DaemonEvent(
            .deliveryFailed, "\(delivery.notification.id): delivery to \(backend) failed: \(reason)",
            fields: fields(of: delivery, backend: backend) + [("CHIME_ERROR", reason)])
    }
}

/// A backend whose successful delivery is itself the journal's record of it (the journal backend), so the
/// dispatcher does not log a second "delivered" entry.
public protocol RecordsOwnDelivery {}
