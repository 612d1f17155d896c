import ChimeCore
import ChimeSystemd
import Foundation

/// What chimed tells the service manager with `sd_notify`: `READY=1`, `RELOADING=1`, `STATUS=`, `WATCHDOG=1`,
/// `STOPPING=1`, sent in order from a queue of its own, since `sd_notify` blocks while the manager's socket is full
/// and that must never hold up a fire. A failure is logged as a `system-error`.
final class ServiceManagerMessages: Sendable {
    private let notifier = SystemdNotifier()
    private let queue = DispatchQueue(label: "chimed.notify", qos: .utility)
    private let log: any EventLog

    init(log: any EventLog) {
        self.log = log
    }

    /// Sends `state` (`KEY=value` lines) after what was sent before.
    func send(_ state: String) {
        let notifier = self.notifier
        let log = self.log
        queue.async {
            do {
                try notifier.notify(state)
            } catch {
                log.record(DaemonEvent(.systemError, "sd_notify failed: \(error)", priority: .warning))
            }
        }
    }

    /// Waits until what was sent before is out, or `limit` has passed: the manager's socket may be full and unread.
    func flush(within limit: Duration) {
        let sent = DispatchSemaphore(value: 0)
        queue.async { sent.signal() }
        _ = sent.wait(timeout: .now() + limit.dispatchInterval)
    }

    /// `WatchdogSec=` of the service, when the manager asks for `WATCHDOG=1` (`sd_watchdog_enabled`).
    func watchdogInterval() throws -> Duration? {
        try notifier.watchdogInterval()
    }

    /// `CLOCK_MONOTONIC` in microseconds, as `RELOADING=1` wants it in `MONOTONIC_USEC=`.
    static func monotonicMicroseconds() -> Int64 {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return Int64(now.tv_sec) * 1_000_000 + Int64(now.tv_nsec) / 1_000
    }
}
