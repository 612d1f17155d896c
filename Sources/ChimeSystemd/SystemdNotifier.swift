import CSystemd

/// Sends service state to the service manager over `$NOTIFY_SOCKET`.
///
/// Wraps `sd_notify(3)`. When the process was not started by systemd (no `NOTIFY_SOCKET`), every call is a
/// successful no-op, which `isConnected` reports.
public struct SystemdNotifier: Sendable {
    public init() {}

    /// Whether a service manager listens (`sd_notify` returned a positive value for the last probe).
    public var isConnected: Bool {
        sd_notify(0, "") > 0
    }

    /// Sends `state` (newline-separated `KEY=VALUE` assignments) with `sd_notify`.
    /// - Returns: `true` if the message was sent, `false` if no service manager listens.
    /// - Throws: `SystemdError` carrying the negative errno `sd_notify` returned.
    @discardableResult
    public func notify(_ state: String) throws(SystemdError) -> Bool {
        let result = sd_notify(0, state)
        try SystemdError.check(result, call: "sd_notify")
        return result > 0
    }

    /// The interval within which the service manager expects `WATCHDOG=1`, or `nil` when it expects none.
    ///
    /// Wraps `sd_watchdog_enabled(3)`, which reads `WATCHDOG_USEC` and `WATCHDOG_PID` (set by systemd for
    /// `WatchdogSec=`) and leaves them in the environment: a `WATCHDOG_PID` naming another process means none. Send
    /// `WATCHDOG=1` at about half the interval.
    /// - Throws: `SystemdError` (`EINVAL`) when the variables do not parse or `WATCHDOG_USEC` is 0.
    public func watchdogInterval() throws(SystemdError) -> Duration? {
        var microseconds: UInt64 = 0
        let result = sd_watchdog_enabled(0, &microseconds)
        try SystemdError.check(result, call: "sd_watchdog_enabled")
        return result > 0 ? .microseconds(Int64(clamping: microseconds)) : nil
    }
}
