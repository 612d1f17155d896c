import CChimeShims
import ChimeCore
import ChimePlatform
import Foundation

/// The timer that wakes the system: a timerfd on CLOCK_REALTIME_ALARM, which expires like a wall-clock timer and,
/// when the system is suspended, wakes it. The scheduler arms it for the earliest occurrence of a notification with
/// `WakeSystem=yes`, beside its one wall-clock timer: one timer of each kind, never one per notification.
///
/// Creating it needs CAP_WAKE_ALARM (chimed.service grants it and nothing else of the kind); `init` throws EPERM
/// without it.
public final class AlarmTimer: WallTimer, Sendable {
    private let watch: DescriptorWatch
    private let state = Locked<(armed: Date?, handler: (@Sendable () -> Void)?)>((nil, nil))

    /// - Parameter queue: where the handler runs (the scheduler's queue).
    /// - Throws: `SystemCallError` from `timerfd_create`: EPERM without CAP_WAKE_ALARM.
    public init(queue: DispatchQueue) throws(SystemCallError) {
        let descriptor = try SystemCallError.check(
            chime_alarm_fd_create(), call: "timerfd_create(CLOCK_REALTIME_ALARM)")
        watch = DescriptorWatch(descriptor: descriptor, queue: queue)
        watch.start { [weak self] in self?.readable() }
    }

    public func setHandler(_ handler: @escaping @Sendable () -> Void) {
        state.withLock { $0.handler = handler }
    }

    public func arm(at deadline: Date) {
        state.withLock { $0.armed = deadline }
        // Never 0, which would disarm it: an occurrence at the epoch is long past and fires at once anyway.
        let armed = chime_alarm_fd_arm(watch.descriptor, max(1, deadline.epochMicroseconds))
        assert(armed == 0, "timerfd_settime failed with errno \(-armed)")
    }

    public func cancel() {
        state.withLock { $0.armed = nil }
        _ = chime_alarm_fd_arm(watch.descriptor, 0)
    }

    public var deadline: Date? { state.withLock { $0.armed } }

    private func readable() {
        guard chime_alarm_fd_read(watch.descriptor) == 1 else { return }
        let handler = state.withLock { state in
            state.armed = nil
            return state.handler
        }
        handler?()
    }
}
