import ChimeCore
import ChimeSystemd
import Foundation

/// The alarm of a user's instance, which cannot hold CAP_WAKE_ALARM: arming it asks the system instance to wake the
/// system then (`org.chime.Wake1.SetWakeAlarm` on the system bus, `WakeService`), cancelling it withdraws the
/// request. It never fires here: once the system is awake, this instance's own wall-clock timer delivers.
///
/// Requests go out in order, each replacing the last; one that fails is logged, once until one succeeds again.
final class RemoteAlarm: WallTimer, Sendable {
    private let bus: OnDemandBusConnection
    private let log: any EventLog
    /// One request at a time, in order.
    private let requests = DispatchQueue(label: "chime.remote-alarm")
    private let state = Locked<(armed: Date?, failing: Bool)>((nil, false))

    init(address: String, log: any EventLog) {
        bus = OnDemandBusConnection(address: address, label: "chime.wake")
        self.log = log
    }

    public func setHandler(_ handler: @escaping @Sendable () -> Void) {}

    public func arm(at deadline: Date) {
        state.withLock { $0.armed = deadline }
        send(deadline.epochMicroseconds)
    }

    public func cancel() {
        state.withLock { $0.armed = nil }
        send(0)
    }

    public var deadline: Date? { state.withLock { $0.armed } }

    private func send(_ microseconds: Int64) {
        requests.async { [self] in
            let done = DispatchSemaphore(value: 0)
            Task {
                defer { done.signal() }
                do {
                    try await bus.connection().call(
                        destination: "org.chime.Notifications1", path: WakeService.path,
                        interface: WakeService.interface, member: "SetWakeAlarm",
                        arguments: { try $0.append(.int64(microseconds)) }, reply: { _ in })
                    state.withLock { $0.failing = false }
                } catch {
                    let first = state.withLock { state in
                        defer { state.failing = true }
                        return !state.failing
                    }
                    guard first else { return }
                    log.record(
                        DaemonEvent(
                            .systemError,
                            "Cannot ask the system instance of chimed to wake the system (\(error)); WakeSystem=yes "
                                + "notifications will not wake it", priority: .warning))
                }
            }
            done.wait()
        }
    }
}
