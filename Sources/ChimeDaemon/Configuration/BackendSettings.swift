import Foundation

/// chimed.conf `[Desktop]`: the `desktop` backend (Desktop Notifications over the session bus).
public struct DesktopSettings: Sendable, Equatable {
    public var name = "desktop"
    /// `AppName=`: the application name servers show and group by.
    public var appName = "chime"
    /// `DesktopEntry=`: the `desktop-entry` hint, and the launcher entry the badge is published for.
    public var desktopEntry = "chime"
    /// `ExpireSec=`: how long a bubble stays; `nil` leaves it to the server.
    public var expire: Duration? = nil
    /// `Fallback=`: where deliveries go while no server can be reached; `nil` for nowhere.
    public var fallback: String? = "journal"

    public init() {}
}

/// chimed.conf `[Command]`: a `command` backend; the section repeats, `Name=` telling them apart.
public struct CommandSettings: Sendable, Equatable {
    public var name = "command"
    /// `Exec=`: the argv, run without a shell; empty while not configured, and every delivery then fails saying so.
    public var argv: [String] = []
    /// `TimeoutSec=`: how long one run may take before its whole process group is killed.
    public var timeout: Duration = .seconds(30)

    public init() {}
}

/// chimed.conf `[Webhook]`: a `webhook` backend; the section repeats, `Name=` telling them apart.
public struct WebhookSettings: Sendable, Equatable {
    /// `Header=NAME: VALUE`.
    public struct Header: Sendable, Equatable {
        public var name: String
        public var value: String

        public init(name: String, value: String) {
            self.name = name
            self.value = value
        }
    }

    public var name = "webhook"
    /// `URL=`: where to POST (http or https); `nil` while not configured, and every delivery then fails saying so.
    public var url: String? = nil
    public var headers: [Header] = []
    /// `TimeoutSec=`: how long one attempt may take.
    public var timeout: Duration = .seconds(10)
    /// `Retries=`: attempts after the first, on connection errors, timeouts and 5xx.
    public var retries = 3
    /// `RetrySec=`: the first backoff, doubling after each retry, with jitter.
    public var retryDelay: Duration = .seconds(1)
    /// `RetryMaxSec=`: the longest backoff.
    public var retryMaxDelay: Duration = .seconds(60)

    public init() {}
}

/// chimed.conf `[Presentation]`: which kinds of presentation are allowed, the Linux form of iOS's
/// `UIUserNotificationSettings`. What is not allowed is stripped before delivery.
public struct PresentationSettings: Sendable, Equatable, CustomStringConvertible {
    /// `Alert=no`: nothing is shown; deliveries go to the journal only.
    public var alert = true
    /// `Sound=no`: no sound (no sound hints; servers are asked to keep quiet).
    public var sound = true
    /// `Badge=no`: `Badge=` of notifications changes nothing.
    public var badge = true

    public init(alert: Bool = true, sound: Bool = true, badge: Bool = true) {
        self.alert = alert
        self.sound = sound
        self.badge = badge
    }

    /// Removes from `delivery` what is not allowed: without alerts it goes to the journal only, without sound it
    /// has none and asks for quiet, without badges its `Badge=` is dropped.
    public func strip(_ delivery: inout Delivery) {
        if !alert { delivery.notification.backends = ["journal"] }
        if !sound {
            delivery.notification.sound = nil
            delivery.isSoundSuppressed = true
        }
        if !badge { delivery.notification.badge = nil }
    }

    /// "alert, sound, badge allowed" / "alert allowed; sound, badge not allowed".
    public var description: String {
        let kinds = [("alert", alert), ("sound", sound), ("badge", badge)]
        let allowed = kinds.filter(\.1).map(\.0)
        let denied = kinds.filter { !$0.1 }.map(\.0)
        var parts: [String] = []
        if !allowed.isEmpty { parts.append(allowed.joined(separator: ", ") + " allowed") }
        if !denied.isEmpty { parts.append(denied.joined(separator: ", ") + " not allowed") }
        return parts.joined(separator: "; ")
    }
}
