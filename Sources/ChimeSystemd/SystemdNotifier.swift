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

    /// The watchdog interval systemd asks for (`WatchdogSec=`), or `nil` when it asks for none.
    ///
    /// Wraps `sd_watchdog_enabled(3)`, which reads `WATCHDOG_USEC` and `WATCHDOG_PID`.
    public func watchdogInterval() -> Duration? {
        var microseconds: UInt64 = 0
        guard sd_watchdog_enabled(0, &microseconds) > 0, microseconds > 0 else { return nil }
        return .microseconds(Int64(clamping: microseconds))
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
}
