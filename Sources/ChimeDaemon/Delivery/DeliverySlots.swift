import ChimeCore
import Foundation

/// A bound on the deliveries in flight to each backend: past it, a delivery waits for one of that backend's to
/// finish, in the order they came. A backend that hangs until its timeout, or a burst of thousands due at once,
/// then holds a bounded number of tasks (and commands, and connections); another backend is never held up.
public final class DeliverySlots: Sendable {
    private struct Backend {
        var running = 0
        var waiting: [@Sendable () async -> Void] = []
        /// Where `waiting` starts: taken from the front without moving the rest.
        var next = 0
    }

    /// How many deliveries may be in flight to one backend unless the dispatcher says otherwise.
    public static let defaultPerBackend = 256

    let perBackend: Int
    private let backends = Locked<[String: Backend]>([:])

    init(perBackend: Int = DeliverySlots.defaultPerBackend) {
        self.perBackend = perBackend
    }

    /// Runs `delivery` (on the daemon's executor) once fewer than `perBackend` deliveries to `backend` are in flight.
    func start(_ backend: String, _ delivery: @escaping @Sendable () async -> Void) {
        let runsNow = backends.withLock { backends in
            if backends[backend, default: Backend()].running < perBackend {
                backends[backend, default: Backend()].running += 1
                return true
            }
            backends[backend, default: Backend()].waiting.append(delivery)
            return false
        }
        if runsNow { run(backend, delivery) }
    }

    /// How many deliveries to `backend` are in flight, and how many wait.
    func count(_ backend: String) -> (running: Int, waiting: Int) {
        backends.withLock { backends in
            let state = backends[backend] ?? Backend()
            return (state.running, state.waiting.count - state.next)
        }
    }

    private func run(_ backend: String, _ delivery: @escaping @Sendable () async -> Void) {
        Task.detached(executorPreference: DaemonExecutor.shared) { [self] in
            await delivery()
            if let next = finished(backend) { run(backend, next) }
        }
    }

    /// One delivery to `backend` finished: the next waiting one, which takes its slot, if there is one.
    private func finished(_ backend: String) -> (@Sendable () async -> Void)? {
        backends.withLock { backends in
            guard var state = backends[backend] else { return nil }
            backends[backend] = nil
            defer { backends[backend] = state.running > 0 || state.next < state.waiting.count ? state : nil }
            guard state.next < state.waiting.count else {
                state.running -= 1
                return nil
            }
            let next = state.waiting[state.next]
            state.next += 1
            if state.next == state.waiting.count {
                state.waiting.removeAll()
                state.next = 0
            }
            return next
        }
    }
}
