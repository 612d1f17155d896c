import ChimeCore
import Foundation

/// Fans each due occurrence out to its backends, concurrently and each with a timeout, so that a slow or failing
/// backend never delays another one or the scheduler's timer.
///
/// Each outcome is logged as its own event with `CHIME_BACKEND=`, except by backends whose delivery is itself
/// the journal entry (`recordsOwnDelivery`).
public final class Dispatcher: DeliveryDispatching, @unchecked Sendable {
    private let backends: [String: any DeliveryBackend]
    private let defaultBackends: [String]
    private let timeout: Duration
    private let clock: any WallClock
    private let log: any EventLog
    private let inFlight = DispatchGroup()

    public init(
        backends: [any DeliveryBackend], defaultBackends: [String], timeout: Duration = .seconds(30),
        clock: any WallClock, log: any EventLog
    ) {
        self.backends = Dictionary(backends.map { ($0.name, $0) }) { first, _ in first }
        self.defaultBackends = defaultBackends
        self.timeout = timeout
        self.clock = clock
        self.log = log
    }

    /// The backend names a notification goes to: its `Deliver=`, or the default.
    public func backendNames(for notification: ScheduledNotification) -> [String] {
        notification.backends.isEmpty ? defaultBackends : notification.backends
    }

    public func dispatch(_ delivery: Delivery, finished: @escaping @Sendable () -> Void) {
        let group = DispatchGroup()
        for name in backendNames(for: delivery.notification) {
            guard let backend = backends[name] else {
                log.record(Self.failure(delivery, backend: name, reason: "no backend named '\(name)'"))
                continue
            }
            let handOff = clock.now()
            inFlight.enter()
            group.enter()
            Task.detached { [self] in
                defer {
                    group.leave()
                    inFlight.leave()
                }
                await run(backend, delivery, handOff: handOff)
            }
        }
        group.notify(queue: .global(qos: .utility), execute: finished)
    }

    /// Waits up to `limit` for deliveries in flight (at shutdown). Returns whether all finished.
    public func drain(within limit: Duration) -> Bool {
        let (seconds, attoseconds) = limit.components
        let deadline =
            DispatchTime.now() + .nanoseconds(Int(seconds) * 1_000_000_000 + Int(attoseconds / 1_000_000_000))
        return inFlight.wait(timeout: deadline) == .success
    }

    private func run(_ backend: any DeliveryBackend, _ delivery: Delivery, handOff: Date) async {
        let timeout = self.timeout
        let outcome: String? = await withTaskGroup(of: String?.self) { group in
            group.addTask {
                do {
                    try await backend.deliver(delivery, deliveredAt: handOff)
                    return nil
                } catch {
                    return "\(error)"
                }
            }
            group.addTask {
                try? await Task.sleep(for: timeout)
                return Task.isCancelled ? nil : "timed out after \(timeout)"
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            return first
        }
        if let reason = outcome {
            log.record(Self.failure(delivery, backend: backend.name, reason: reason))
        } else if !(backend is any RecordsOwnDelivery) {
            log.record(Self.delivered(delivery, backend: backend.name, at: handOff))
        }
    }

    /// The fields every delivery event carries.
    public static func fields(of delivery: Delivery, backend: String) -> [(name: String, value: String)] {
        let notification = delivery.notification
        var fields: [(name: String, value: String)] = [
            ("CHIME_ID", notification.id), ("CHIME_TITLE", notification.title),
            ("CHIME_FIRE_TIME", Timestamp.iso8601(delivery.fireTime, fraction: .microseconds)),
            ("CHIME_BACKEND", backend),
        ]
        if !notification.body.isEmpty { fields.append(("CHIME_BODY", notification.body)) }
        if delivery.missedCount > 0 { fields.append(("CHIME_MISSED", String(delivery.missedCount))) }
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
